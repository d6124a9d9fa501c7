// Vulnerability scanners: Trivy (`trivy image --format json`) and Grype (`grype -o json`), run as a
// binary on PATH when there is one, else as a container of the scanner's image through the engine,
// with the scanner's database cached in a named volume. Both reports become one CVE record shape.
import { parseDockerHost, type ContainerSpec, type Engine } from "../engine/client.ts"
import { timedOut, upstream } from "../errors/errors.ts"
import { spawnBounded } from "../engine/spawn.ts"

export const SEVERITIES = ["critical", "high", "medium", "low", "negligible", "unknown"] as const
export type Severity = (typeof SEVERITIES)[number]
export type ScannerName = "trivy" | "grype"

export interface Cve {
  id: string
  package: string
  installed: string
  /** The version(s) that fix it; null when there is no fix. */
  fixed: string | null
  severity: Severity
  title: string | null
  link: string | null
}

export interface Report {
  scanner: ScannerName
  version: string | null
  via: "binary" | "container"
  vulnerabilities: Cve[]
}

export const scannerImages: Record<ScannerName, string> = {
  trivy: "aquasec/trivy:latest",
  grype: "anchore/grype:latest",
}
export const cacheVolume = (name: ScannerName) => `harbormaster-${name}-db`
const cacheEnv: Record<ScannerName, string> = { trivy: "TRIVY_CACHE_DIR", grype: "GRYPE_DB_CACHE_DIR" }

const severity = (s: unknown): Severity => {
  const word = String(s ?? "").toLowerCase()
  return (SEVERITIES as readonly string[]).includes(word) ? (word as Severity) : "unknown"
}

/** Trivy's JSON report: `Results[].Vulnerabilities[]`, one result per scanned target (OS packages, language files). */
export function parseTrivy(report: any): Cve[] {
  return (report?.Results ?? []).flatMap((r: any) =>
    (r.Vulnerabilities ?? []).map(
      (v: any): Cve => ({
        id: v.VulnerabilityID,
        package: v.PkgName,
        installed: v.InstalledVersion ?? "",
        fixed: v.FixedVersion || null,
        severity: severity(v.Severity),
        title: v.Title ?? null,
        link: v.PrimaryURL ?? v.References?.[0] ?? null,
      }),
    ),
  )
}

/** Grype's JSON report: `matches[]`, each a vulnerability found in an artifact (package). */
export function parseGrype(report: any): Cve[] {
  return (report?.matches ?? []).map((m: any): Cve => {
    const v = m.vulnerability ?? {}
    const fixes: string[] = v.fix?.state === "fixed" ? (v.fix.versions ?? []) : []
    return {
      id: v.id,
      package: m.artifact?.name ?? "",
      installed: m.artifact?.version ?? "",
      fixed: fixes.length ? fixes.join(", ") : null,
      severity: severity(v.severity),
      title: v.description ?? m.relatedVulnerabilities?.find((r: any) => r.description)?.description ?? null,
      link: v.dataSource || v.urls?.[0] || null,
    }
  })
}

const parsers: Record<ScannerName, (report: any) => Cve[]> = { trivy: parseTrivy, grype: parseGrype }
const versionOf: Record<ScannerName, (report: any) => string | null> = {
  trivy: (r) => r?.Trivy?.Version ?? null,
  grype: (r) => r?.descriptor?.version ?? null,
}

/** The scanner's arguments for one image of the local engine. */
export function scanArgs(name: ScannerName, ref: string): string[] {
  return name === "trivy"
    ? ["image", "--format", "json", "--quiet", "--image-src", "docker", ref]
    : ["-o", "json", `docker:${ref}`]
}

/** Reads a scanner's stdout into a report; a report that is not the scanner's JSON is a failure. */
export function readReport(name: ScannerName, via: Report["via"], stdout: string): Report {
  let report: any
  try {
    report = JSON.parse(stdout)
  } catch {
    throw upstream(`${name} printed no JSON report: ${tail(stdout)}`, "scan_failed")
  }
  return { scanner: name, version: versionOf[name](report), via, vulnerabilities: parsers[name](report) }
}

const tail = (text: string) => text.trim().slice(-500) || "(no output)"

export interface ScannerOptions {
  choice: "trivy" | "grype" | "auto"
  /** Seconds a scan may take. */
  timeout: number
  engine: Engine
  /** The environment the scanner binary runs with (its PATH decides whether there is one). */
  env: Record<string, string | undefined>
}

export interface Scanner {
  scan(ref: string): Promise<Report>
}

/** Runs the chosen scanner, or with "auto" the first of Trivy and Grype on PATH; as a container when there is no binary. */
export function createScanner(o: ScannerOptions): Scanner {
  return {
    async scan(ref) {
      const { name, binary } = chooseScanner(o)
      return binary ? runBinary(o, name, binary, ref) : runContainer(o, name, ref)
    },
  }
}

/** The scanner a scan runs, and its binary when the environment's PATH has one (Trivy, in a container, when "auto" finds neither). */
function chooseScanner(o: ScannerOptions): { name: ScannerName; binary?: string } {
  const which = (name: ScannerName) => Bun.which(name, { PATH: o.env.PATH ?? "" }) ?? undefined
  if (o.choice !== "auto") return { name: o.choice, binary: which(o.choice) }
  const found = (["trivy", "grype"] as const).find(which)
  return found ? { name: found, binary: which(found) } : { name: "trivy" }
}

const scanTimeout = (name: string, timeout: number) =>
  timedOut(`${name} did not finish within ${timeout} s`, "scan_timeout")

/** The scanner's binary run against the engine; stopped at the timeout or when the service exits (the queue runs it again after a restart). */
async function runBinary(o: ScannerOptions, name: ScannerName, binary: string, ref: string): Promise<Report> {
  const { proc, exited, stopped } = spawnBounded(
    [binary, ...scanArgs(name, ref)],
    { env: { ...o.env, DOCKER_HOST: o.engine.host }, stdout: "pipe", stderr: "pipe", stdin: "ignore" },
    { timeout: o.timeout },
  )
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    exited,
  ])
  if (stopped()) throw scanTimeout(name, o.timeout)
  if (code !== 0) throw upstream(`${name} exited with ${code}: ${tail(stderr || stdout)}`, "scan_failed")
  return readReport(name, "binary", stdout)
}

/**
 * The container that scans `ref` with the scanner's image: the engine's socket mounted (its TCP
 * address on the host network when it has no socket), the scanner's database in its cache volume.
 */
function scanContainer(engine: Engine, name: ScannerName, ref: string): ContainerSpec {
  const target = parseDockerHost(engine.host)
  const socket = "/var/run/docker.sock"
  return {
    Image: scannerImages[name],
    Cmd: scanArgs(name, ref),
    Env: [`DOCKER_HOST=${target.unix ? `unix://${socket}` : engine.host}`, `${cacheEnv[name]}=/cache`],
    Labels: { "harbormaster.scanner": name },
    HostConfig: {
      Binds: [...(target.unix ? [`${target.unix}:${socket}:ro`] : []), `${cacheVolume(name)}:/cache`],
      ...(target.unix ? {} : { NetworkMode: "host" }),
    },
  }
}

/** The scanner run as a container (its image pulled when missing), removed afterwards. */
async function runContainer(o: ScannerOptions, name: ScannerName, ref: string): Promise<Report> {
  const image = scannerImages[name]
  await o.engine.inspectImage(image).catch(() => o.engine.pullImage(image))
  const { Id } = await o.engine.createContainer(scanContainer(o.engine, name, ref))
  let timer: ReturnType<typeof setTimeout> | undefined
  try {
    await o.engine.containerAction(Id, "start")
    const expired = new Promise<never>(
      (_, reject) => (timer = setTimeout(() => reject(scanTimeout(name, o.timeout)), o.timeout * 1000)),
    )
    const { StatusCode } = await Promise.race([o.engine.waitContainer(Id), expired])
    const out: Record<string, string[]> = { stdout: [], stderr: [] }
    for await (const l of o.engine.logs(Id, { follow: false, tail: "all" })) out[l.stream]?.push(l.line)
    const stdout = out.stdout!.join("\n")
    if (StatusCode !== 0)
      throw upstream(`${name} exited with ${StatusCode}: ${tail(out.stderr!.join("\n") || stdout)}`, "scan_failed")
    return readReport(name, "container", stdout)
  } finally {
    clearTimeout(timer)
    await o.engine.removeContainer(Id, { force: true }).catch(() => {})
  }
}
