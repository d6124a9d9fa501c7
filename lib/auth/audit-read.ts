// Reading the audit log for a query, on a worker thread (audit-worker.ts): the files newest first,
// each line parsed and filtered until a page and one more are found. One query at a time on the one
// worker, within a deadline (a worker past it is stopped, and a new one takes the next query); past
// QUERIES_WAITING queries waiting, 503.
import { existsSync, readFileSync } from "node:fs"
import { timedOut, unavailable } from "../errors/errors.ts"

export interface AuditEntry {
  /** Sortable and unique: the cursor of a query. */
  id: string
  time: string
  /** What happened besides a request: login, logout, setup, ws.open, ws.close, ws.ended, stream.ended, mcp.tool. */
  action?: string
  user: string | null
  source: string | null
  role: string | null
  method: string
  /** The route's pattern, such as /api/stacks/:name/env. */
  route: string
  /** Its path parameters. */
  target: Record<string, string>
  status: number
  result: "ok" | "denied" | "failed"
  peer: string | null
  token: string | null
  /** The MCP tool called. */
  tool?: string
  /** The control plane (its server_id) whose gateway forwarded the call of `user`, signed in there. */
  via?: string
  /** Why something held open was ended (`stream.ended`, `ws.ended`): user removed, signed out, token revoked, role changed... */
  reason?: string
}

export interface AuditQuery {
  user?: string
  route?: string
  action?: string
  status_min?: number
  status_max?: number
  since?: number
  until?: number
  /** The id of the last entry of the page before. */
  cursor?: string
  limit: number
}

export interface AuditPage {
  entries: AuditEntry[]
  next: string | null
}

export const QUERIES_WAITING = 8
export const QUERY_DEADLINE_MS = 30_000

function matches(e: AuditEntry, q: AuditQuery): boolean {
  const time = Date.parse(e.time)
  return (
    (q.cursor === undefined || e.id < q.cursor) &&
    (q.user === undefined || e.user === q.user) &&
    (q.route === undefined || e.route === q.route || e.route.startsWith(`${q.route.replace(/\/$/, "")}/`)) &&
    (q.action === undefined || e.action === q.action) &&
    (q.status_min === undefined || e.status >= q.status_min) &&
    (q.status_max === undefined || e.status <= q.status_max) &&
    (q.since === undefined || time >= q.since) &&
    (q.until === undefined || time <= q.until)
  )
}

/** The page of `files` (newest first) a query asks for: what the worker runs. */
export function readAudit(files: string[], q: AuditQuery): AuditPage {
  const entries: AuditEntry[] = []
  for (const name of files) {
    if (entries.length > q.limit) break
    if (!existsSync(name)) continue
    const lines = readFileSync(name, "utf8").split("\n")
    for (let j = lines.length - 1; j >= 0 && entries.length <= q.limit; j--) {
      if (!lines[j]) continue
      const e = JSON.parse(lines[j]!) as AuditEntry
      if (matches(e, q)) entries.push(e)
    }
  }
  const page = entries.slice(0, q.limit)
  return { entries: page, next: entries.length > q.limit ? page.at(-1)!.id : null }
}

export interface AuditRequest {
  id: number
  files: string[]
  query: AuditQuery
}
export type AuditReply = { id: number; page: AuditPage } | { id: number; error: string }

/**
 * The worker module. A compiled binary (`bun build --compile`, which must list this file as an
 * entrypoint) keeps it under its own root, where import.meta.url names the binary itself.
 */
const WORKER = import.meta.url.startsWith("file:///$bunfs/")
  ? new URL("lib/auth/audit-worker.ts", import.meta.url)
  : new URL("./audit-worker.ts", import.meta.url)

type Thread = Worker & { ref(): void; unref(): void }

interface Job {
  files: string[]
  query: AuditQuery
  resolve(page: AuditPage): void
  reject(err: Error): void
}

/** The one worker that reads the audit log, one query at a time. */
export class AuditReader {
  private worker: Thread | undefined
  private queue: Job[] = []
  private busy = false
  private nextId = 1

  read(files: string[], query: AuditQuery): Promise<AuditPage> {
    if (this.queue.length >= QUERIES_WAITING)
      return Promise.reject(
        unavailable("too many audit queries are being read; retry in a second", "audit_busy", { retryAfter: 1 }),
      )
    return new Promise((resolve, reject) => {
      this.queue.push({ files, query, resolve, reject })
      this.next()
    })
  }

  private next(): void {
    const job = this.busy ? undefined : this.queue.shift()
    if (!job) return this.worker?.unref()
    this.busy = true
    const worker = (this.worker ??= new Worker(WORKER) as Thread)
    worker.ref()
    const id = this.nextId++
    const done = (settle: () => void) => {
      clearTimeout(timer)
      worker.removeEventListener("message", onMessage)
      worker.removeEventListener("error", onError)
      this.busy = false
      settle()
      this.next()
    }
    const onMessage = ({ data }: MessageEvent<AuditReply>) => {
      if (data.id === id) done(() => ("error" in data ? job.reject(new Error(data.error)) : job.resolve(data.page)))
    }
    const onError = (event: ErrorEvent) => {
      this.stop(worker)
      done(() => job.reject(new Error(event.message || "reading the audit log failed")))
    }
    const timer = setTimeout(() => {
      this.stop(worker)
      done(() => job.reject(timedOut(`reading the audit log took longer than ${QUERY_DEADLINE_MS / 1000} s`)))
    }, QUERY_DEADLINE_MS)
    worker.addEventListener("message", onMessage)
    worker.addEventListener("error", onError)
    worker.postMessage({ id, files: job.files, query: job.query } satisfies AuditRequest)
  }

  private stop(worker: Thread): void {
    worker.terminate()
    if (this.worker === worker) this.worker = undefined
  }
}
