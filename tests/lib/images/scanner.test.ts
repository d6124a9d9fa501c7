import { afterAll, expect, test } from "bun:test"
import { readFileSync, rmSync } from "node:fs"
import { join } from "node:path"
import { FakeEngine } from "../../support/fake-engine.ts"
import { fixture, standInPath as standIn } from "../../support/scanners.ts"
import {
  cacheVolume,
  createScanner,
  parseGrype,
  parseTrivy,
  scannerImages,
  type ScannerOptions,
} from "#lib/images/scanner.ts"

const load = (name: string) => JSON.parse(readFileSync(fixture(name), "utf8"))
const dirs: string[] = []
const standInPath = (...names: string[]) => {
  const dir = standIn(...names)
  dirs.push(dir)
  return dir
}
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })))

test("Trivy's report: every vulnerability of every result, fixed version null when there is none", () => {
  const alpine = parseTrivy(load("trivy-alpine-310.json"))
  expect(alpine).toHaveLength(4)
  expect(alpine[0]).toEqual({
    id: "CVE-2019-1549",
    package: "libcrypto1.1",
    installed: "1.1.1c-r0",
    fixed: "1.1.1d-r0",
    severity: "medium",
    title: "openssl: information disclosure in fork()",
    link: "https://avd.aquasec.com/nvd/cve-2019-1549",
  })
  const buster = parseTrivy(load("trivy-debian-buster.json"))
  expect(buster.map((c) => [c.id, c.package, c.fixed, c.severity])).toEqual([
    ["CVE-2019-18276", "bash", null, "low"],
    ["CVE-2019-18224", "libidn2-0", "2.0.5-1+deb10u1", "critical"],
  ])
})

test("Grype's report: one record per match, fix versions joined, severities folded to lower case", () => {
  const cves = parseGrype(load("grype-image.json"))
  expect(cves.map((c) => [c.id, c.package, c.installed, c.severity])).toEqual([
    ["CVE-1999-0001", "package-1", "1.1.1", "low"],
    ["CVE-1999-0002", "package-2", "2.2.2", "critical"],
  ])
  expect(cves[0]!.fixed).toBe("1.2.1, 2.1.3, 3.4.0")
  expect(parseGrype(load("grype-empty.json"))).toEqual([])
})

const options = (env: Record<string, string>, o: Partial<ScannerOptions> = {}): ScannerOptions => ({
  choice: "auto",
  timeout: 30,
  engine: new FakeEngine(),
  env: { PATH: `${env.PATH}:/usr/bin:/bin`, ...Object.fromEntries(Object.entries(env).filter(([k]) => k !== "PATH")) },
  ...o,
})

test("a scanner binary on PATH is run with the real scanner's arguments and its report is read", async () => {
  const args = join(standInPath(), "args")
  const trivy = await createScanner(
    options({
      PATH: standInPath("trivy", "grype"),
      STAND_IN_REPORT: fixture("trivy-alpine-310.json"),
      STAND_IN_ARGS: args,
    }),
  ).scan("svc-test/busybox:latest")
  expect(trivy).toMatchObject({ scanner: "trivy", via: "binary", version: "dev" })
  expect(trivy.vulnerabilities).toHaveLength(4)
  const grype = await createScanner(
    options({ PATH: standInPath("grype"), STAND_IN_REPORT: fixture("grype-image.json"), STAND_IN_ARGS: args }),
  ).scan("svc-test/busybox:latest")
  expect(grype).toMatchObject({ scanner: "grype", via: "binary", version: "[not provided]" })
  expect(grype.vulnerabilities.map((c) => c.id)).toEqual(["CVE-1999-0001", "CVE-1999-0002"])
  expect(readFileSync(args, "utf8").trim().split("\n")).toEqual([
    "trivy image --format json --quiet --image-src docker svc-test/busybox:latest DOCKER_HOST=fake://engine",
    "grype -o json docker:svc-test/busybox:latest DOCKER_HOST=fake://engine",
  ])
})

test("SVC_SCANNER=grype picks grype even when trivy is on PATH", async () => {
  const report = await createScanner(
    options({ PATH: standInPath("trivy", "grype"), STAND_IN_REPORT: fixture("grype-empty.json") }, { choice: "grype" }),
  ).scan("x:1")
  expect(report).toMatchObject({ scanner: "grype", vulnerabilities: [] })
})

test("a failing scanner, a report that is not JSON, and a scanner past its deadline are clear errors", async () => {
  const PATH = standInPath("trivy")
  const failing = createScanner(
    options({
      PATH,
      STAND_IN_REPORT: fixture("trivy-alpine-310.json"),
      STAND_IN_FAIL: "FATAL image scan error: unable to inspect the image",
    }),
  )
  await expect(failing.scan("x:1")).rejects.toMatchObject({
    kind: "upstream",
    code: "scan_failed",
    message: expect.stringContaining("trivy exited with 1: FATAL image scan error"),
  })
  const garbage = createScanner(options({ PATH, STAND_IN_REPORT: fixture("README.md") }))
  await expect(garbage.scan("x:1")).rejects.toMatchObject({
    code: "scan_failed",
    message: expect.stringContaining("trivy printed no JSON report"),
  })
  const slow = createScanner(
    options({ PATH, STAND_IN_REPORT: fixture("trivy-alpine-310.json"), STAND_IN_SLEEP: "30" }, { timeout: 1 }),
  )
  await expect(slow.scan("x:1")).rejects.toMatchObject({
    kind: "timed_out",
    code: "scan_timeout",
    message: "trivy did not finish within 1 s",
  })
})

class SocketEngine extends FakeEngine {
  override readonly host = "unix:///run/hm-test/docker.sock"
  override async createContainer(spec: Record<string, any>, name?: string) {
    const created = await super.createContainer(spec, name)
    this.containers.get(created.Id)!.logs = readFileSync(fixture("grype-image.json"), "utf8")
      .split("\n")
      .map((line) => ({ stream: "stdout" as const, ts: "", line }))
    return created
  }
}

test("without a binary the scanner runs as a container of its image, with the engine socket read-only and its database in a volume", async () => {
  const engine = new SocketEngine()
  const report = await createScanner(options({ PATH: standInPath() }, { choice: "grype", engine })).scan("web:1")
  expect(report).toMatchObject({ scanner: "grype", via: "container" })
  expect(report.vulnerabilities).toHaveLength(2)
  expect(engine.calls.find((c) => c.op === "pullImage")?.args).toEqual([scannerImages.grype])
  const spec = engine.calls.find((c) => c.op === "createContainer")!.args[0] as Record<string, any>
  expect(spec).toMatchObject({ Image: "anchore/grype:latest", Cmd: ["-o", "json", "docker:web:1"] })
  expect(spec.Env).toEqual(["DOCKER_HOST=unix:///var/run/docker.sock", "GRYPE_DB_CACHE_DIR=/cache"])
  expect(spec.HostConfig.Binds).toEqual([
    "/run/hm-test/docker.sock:/var/run/docker.sock:ro",
    `${cacheVolume("grype")}:/cache`,
  ])
  expect(engine.containers.size).toBe(0)
})
