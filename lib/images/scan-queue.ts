// The scan queue: one scan at a time, the pending jobs kept in <dataDir>/scans/queue.json so that a
// restart resumes them, each image's latest result in <dataDir>/scans/<image id>.json.
import { readdir } from "node:fs/promises"
import { join } from "node:path"
import { readJson, writeJson } from "../data/datadir.ts"
import type { Engine } from "../engine/client.ts"
import type { EventBus } from "../engine/events.ts"
import { invalid } from "../errors/errors.ts"
import { SEVERITIES, type Cve, type Report, type Severity } from "./scanner.ts"

export interface ScanJob {
  /** The image id, `sha256:<64 hex>`. */
  image: string
  /** What the scanner is given: a tag of the image, or its id. */
  ref: string
  queued_at: string
}

export interface ScanSummary {
  status: "done" | "failed"
  scanner: string | null
  scanned_at: string
  counts: Record<Severity, number>
  error: string | null
}

export interface ScanRecord extends ScanSummary {
  image: string
  ref: string
  scanner_version: string | null
  started_at: string
  vulnerabilities: Cve[]
}

export type ScanState = "queued" | "running"

const ID = /^sha256:([a-f0-9]{64})$/

/** The file name of an image's result; anything but a full image id is refused before touching the disk. */
export function resultName(image: string): string {
  const hex = ID.exec(image)?.[1]
  if (!hex) throw invalid(`"${image.slice(0, 80)}" is not a full image id`, "invalid_id")
  return `${hex}.json`
}

export function countBySeverity(cves: Cve[]): Record<Severity, number> {
  const counts = Object.fromEntries(SEVERITIES.map((s) => [s, 0])) as Record<Severity, number>
  for (const c of cves) counts[c.severity]++
  return counts
}

export const summaryOf = ({ status, scanner, scanned_at, counts, error }: ScanRecord): ScanSummary => ({
  status,
  scanner,
  scanned_at,
  counts,
  error,
})

export class ScanQueue {
  private jobs: ScanJob[] | undefined
  private loading: Promise<ScanJob[]> | undefined
  private running: string | undefined
  private draining: Promise<void> | undefined
  /** Each image's latest result without its findings, read once from the files and kept up to date by the worker. */
  private kept: Promise<Map<string, ScanSummary & { ref: string }>> | undefined
  readonly dir: string

  constructor(
    dataDir: string,
    private readonly run: (ref: string) => Promise<Report>,
    private readonly events?: EventBus,
    private readonly now: () => number = Date.now,
  ) {
    this.dir = join(dataDir, "scans")
  }

  private get file() {
    return join(this.dir, "queue.json")
  }

  private load(): Promise<ScanJob[]> {
    return (this.loading ??= readJson<ScanJob[]>(this.file, []).then((jobs) => (this.jobs = jobs)))
  }

  /** Jobs waiting or running. */
  get length(): number {
    return this.jobs?.length ?? 0
  }

  state(image: string): ScanState | undefined {
    if (this.running === image) return "running"
    return this.jobs?.some((j) => j.image === image) ? "queued" : undefined
  }

  /** Adds a scan of the image unless one is already waiting (a running one does not count); starts the worker. */
  async enqueue(image: string, ref: string): Promise<"queued"> {
    resultName(image)
    const jobs = await this.load()
    const waiting = this.running ? jobs.slice(1) : jobs
    if (!waiting.some((j) => j.image === image)) {
      jobs.push({ image, ref, queued_at: new Date(this.now()).toISOString() })
      writeJson(this.file, jobs)
    }
    this.resume()
    return "queued"
  }

  /** Starts working through the persisted jobs (at start of the service). */
  resume(): Promise<void> {
    return (this.draining ??= this.drain().finally(() => (this.draining = undefined)))
  }

  /** Resolves once the queue is empty. */
  async idle(): Promise<void> {
    while (this.draining) await this.draining
  }

  private async drain(): Promise<void> {
    const jobs = await this.load()
    while (jobs.length) {
      const job = jobs[0]!
      this.running = job.image
      const record = await this.scan(job)
      writeJson(join(this.dir, resultName(job.image)), record)
      if (this.kept) (await this.kept).set(job.image, { ...summaryOf(record), ref: record.ref })
      jobs.shift()
      writeJson(this.file, jobs)
      this.running = undefined
      this.events?.publish({
        type: "image",
        action: record.status === "done" ? "scan" : "scan_failed",
        id: job.image,
        name: job.ref,
        level: record.status === "done" ? "info" : "error",
        message: record.error ?? `${record.vulnerabilities.length} vulnerabilities found by ${record.scanner}`,
      })
    }
  }

  private async scan(job: ScanJob): Promise<ScanRecord> {
    const started_at = new Date(this.now()).toISOString()
    const base = { image: job.image, ref: job.ref, started_at }
    try {
      const report = await this.run(job.ref)
      const scanned_at = new Date(this.now()).toISOString()
      const counts = countBySeverity(report.vulnerabilities)
      return {
        ...base,
        status: "done",
        scanner: report.scanner,
        scanner_version: report.version,
        scanned_at,
        counts,
        error: null,
        vulnerabilities: report.vulnerabilities,
      }
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err)
      return {
        ...base,
        status: "failed",
        scanner: null,
        scanner_version: null,
        scanned_at: new Date(this.now()).toISOString(),
        counts: countBySeverity([]),
        error,
        vulnerabilities: [],
      }
    }
  }

  /** The image's latest result, or undefined when it was never scanned. */
  result(image: string): Promise<ScanRecord | undefined> {
    return readJson<ScanRecord | undefined>(join(this.dir, resultName(image)), undefined)
  }

  /** Every stored result, keyed by image id. */
  async results(): Promise<Map<string, ScanRecord>> {
    const names = await readdir(this.dir).catch(() => [] as string[])
    const records = await Promise.all(
      names
        .filter((n) => /^[a-f0-9]{64}\.json$/.test(n))
        .map((n) => readJson<ScanRecord | undefined>(join(this.dir, n), undefined)),
    )
    return new Map(records.filter((r) => r !== undefined).map((r) => [r.image, r]))
  }

  /** Every image's latest result as a summary (what it found by severity, not the findings), by image id; read from the files once. */
  summaries(): Promise<Map<string, ScanSummary & { ref: string }>> {
    this.kept ??= this.results().then(
      (all) => new Map([...all].map(([id, r]) => [id, { ...summaryOf(r), ref: r.ref }])),
    )
    this.kept.catch(() => (this.kept = undefined))
    return this.kept
  }
}

/** Queues a scan of one local image (by id or name); the scanner is given its first tag, else its id. */
export async function requestScan(
  engine: Engine,
  queue: ScanQueue,
  idOrName: string,
): Promise<{ image: string; ref: string; state: "queued" }> {
  const image = await engine.inspectImage(idOrName)
  const ref = (image.RepoTags ?? []).find((t) => t !== "<none>:<none>") ?? image.Id
  return { image: image.Id, ref, state: await queue.enqueue(image.Id, ref) }
}
