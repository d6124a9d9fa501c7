// Worker thread of the audit log's reader (audit-read.ts): a query in, its page out.
import type { ThreadReply } from "../threads/worker.ts"
import { readAudit, type AuditPage, type AuditRequest } from "./audit-read.ts"

declare const self: Worker

self.onmessage = ({ data }: MessageEvent<AuditRequest & { id: number }>) => {
  let reply: ThreadReply<AuditPage>
  try {
    reply = { id: data.id, value: readAudit(data.files, data.query) }
  } catch (err) {
    reply = { id: data.id, error: err instanceof Error ? err.message : String(err) }
  }
  self.postMessage(reply)
}
