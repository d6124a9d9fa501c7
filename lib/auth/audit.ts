// The audit log: one JSON line per change, per refusal (401, 403), per sign-in, per shell opened and
// closed, per MCP tool call and per token's first use in a minute, under <data>/audit/. Bounded: past
// `maxBytes` the file is rotated (audit.log -> audit.log.1 -> ...), `files` files in all. An entry
// names the route's pattern and its path parameters, never a body, a query or a header's value.
import { appendFileSync, existsSync, mkdirSync, renameSync, statSync, unlinkSync } from "node:fs"
import { join } from "node:path"
import { AuditReader, type AuditEntry, type AuditPage, type AuditQuery } from "./audit-read.ts"

export type { AuditEntry, AuditPage, AuditQuery }

export type AuditInput = Omit<AuditEntry, "id" | "time" | "result"> & { result?: AuditEntry["result"] }

const resultOf = (status: number): AuditEntry["result"] =>
  status === 401 || status === 403 ? "denied" : status >= 400 ? "failed" : "ok"

export class AuditLog {
  private size: number | undefined
  private seq = 0
  private reader = new AuditReader()
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

  /**
   * Entries newest first, filtered, a page at a time; `next` is the cursor of the page after, if any.
   * Read and parsed on a worker thread (audit-read.ts): a query over every file (tens of megabytes of
   * JSON lines) never holds up the event loop.
   */
  query(q: AuditQuery): Promise<AuditPage> {
    const files = Array.from({ length: this.bounds.files }, (_, i) => (i ? `${this.file}.${i}` : this.file))
    return this.reader.read(files, q)
  }
}
