// Reading the audit log for a query, on a worker thread (audit-worker.ts, lib/threads): the files
// newest first, each line parsed and filtered until a page and one more are found. One query at a
// time, within a deadline; past QUERIES_WAITING queries waiting, 503.
import { existsSync, readFileSync } from "node:fs"
import { internal, timedOut, unavailable } from "../errors/errors.ts"
import { type ThreadFailure, WorkerThread, workerUrl } from "../threads/worker.ts"

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
  /** How long a WebSocket session (a shell, a terminal on the host) was open, on its `ws.close`. */
  seconds?: number
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
  files: string[]
  query: AuditQuery
}

/** The one thread the audit log is read on (audit-worker.ts). */
export class AuditReader {
  private thread = new WorkerThread<AuditRequest, AuditPage>(
    workerUrl(import.meta, "lib/auth/audit-worker.ts"),
    QUERIES_WAITING,
  )

  read(files: string[], query: AuditQuery): Promise<AuditPage> {
    return this.thread.run({ files, query }, QUERY_DEADLINE_MS).catch((err: ThreadFailure) => {
      if (err.reason === "busy")
        throw unavailable("too many audit queries are being read; retry in a second", "audit_busy", { retryAfter: 1 })
      if (err.reason === "deadline")
        throw timedOut(`reading the audit log took longer than ${QUERY_DEADLINE_MS / 1000} s`)
      throw internal(`reading the audit log failed: ${err.message}`)
    })
  }
}
