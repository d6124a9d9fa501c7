// The audit log: one JSON line per change, per refusal (401, 403), per sign-in, per shell opened and
// closed, per MCP tool call and per token's first use in a minute, under <data>/audit/. Bounded: past
// `maxBytes` the file is rotated (audit.log -> audit.log.1 -> ...), `files` files in all. An entry
// names the route's pattern and its path parameters, never a body, a query or a header's value.
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, unlinkSync } from "node:fs"
import { join } from "node:path"

export interface AuditEntry {
  /** Sortable and unique: the cursor of a query. */
  id: string
  time: string
  /** What happened besides a request: login, logout, setup, shell.open, shell.close, mcp.tool. */
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
}

export type AuditInput = Omit<AuditEntry, "id" | "time" | "result"> & { result?: AuditEntry["result"] }

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

const resultOf = (status: number): AuditEntry["result"] =>
  status === 401 || status === 403 ? "denied" : status >= 400 ? "failed" : "ok"

export class AuditLog {
  private size: number | undefined
  private seq = 0
  readonly file: string

  constructor(
    private dir: string,
    private bounds: { maxBytes: number; files: number },
    private now: () => number,
  ) {
    this.file = join(dir, "audit.log")
  }

  private nextId(time: number): string {
    this.seq = (this.seq + 1) % 1_000_000
    return `${String(time).padStart(13, "0")}-${String(this.seq).padStart(6, "0")}`
  }

  private rotate(): void {
    const names = Array.from({ length: this.bounds.files }, (_, i) => (i ? `${this.file}.${i}` : this.file))
    if (existsSync(names.at(-1)!)) unlinkSync(names.at(-1)!)
    for (let i = names.length - 2; i >= 0; i--) if (existsSync(names[i]!)) renameSync(names[i]!, names[i + 1]!)
    this.size = 0
  }

  write(input: AuditInput): AuditEntry {
    const time = this.now()
    const entry: AuditEntry = {
      id: this.nextId(time),
      time: new Date(time).toISOString(),
      ...input,
      result: input.result ?? resultOf(input.status),
    }
    const line = `${JSON.stringify(entry)}\n`
    try {
      if (this.size === undefined) {
        mkdirSync(this.dir, { recursive: true, mode: 0o700 })
        this.size = existsSync(this.file) ? statSync(this.file).size : 0
      }
      if (this.size > 0 && this.size + line.length > this.bounds.maxBytes) this.rotate()
      appendFileSync(this.file, line, { mode: 0o600 })
      this.size += Buffer.byteLength(line)
    } catch (err) {
      console.error("audit log:", err instanceof Error ? err.message : err)
    }
    return entry
  }

  /** Entries newest first, filtered, a page at a time; `next` is the cursor of the page after, if any. */
  query(q: AuditQuery): { entries: AuditEntry[]; next: string | null } {
    const entries: AuditEntry[] = []
    for (let i = 0; i < this.bounds.files && entries.length <= q.limit; i++) {
      const name = i ? `${this.file}.${i}` : this.file
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
}

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
