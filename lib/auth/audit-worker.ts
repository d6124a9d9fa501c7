// Worker thread of the audit log's reader (audit-read.ts): a query in, its page out.
import { readAudit, type AuditReply, type AuditRequest } from "./audit-read.ts"

declare const self: Worker

self.onmessage = ({ data }: MessageEvent<AuditRequest>) => {
  let reply: AuditReply
  try {
    reply = { id: data.id, page: readAudit(data.files, data.query) }
  } catch (err) {
    reply = { id: data.id, error: err instanceof Error ? err.message : String(err) }
  }
  self.postMessage(reply)
}
