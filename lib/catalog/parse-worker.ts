// The worker thread that reads a source's text into templates (lib/catalog/parse.ts): a list of
// megabytes, or a deeply nested one, is parsed and walked here, never on the service's event loop;
// so is a stack's compose file rewritten for a template (its literal secrets made variables).
import { fromFolder } from "./folder.ts"
import { fromPortainer } from "./portainer.ts"
import { unsecret } from "./save.ts"
import type { Parsed, ParseReply, ParseRequest, Unsecreted } from "./parse.ts"

declare const self: Worker

function run(data: ParseRequest): Parsed | Unsecreted {
  if (data.format === "folder") return fromFolder(data.files)
  if (data.format === "unsecret") return unsecret(data.compose, data.patterns)
  let doc: unknown
  try {
    doc = JSON.parse(data.text)
  } catch (err) {
    throw new Error(`the list is not JSON: ${err instanceof Error ? err.message : err}`)
  }
  return fromPortainer(doc)
}

self.onmessage = ({ data }: MessageEvent<ParseRequest>) => {
  let reply: ParseReply
  try {
    reply = { value: run(data) }
  } catch (err) {
    reply = { error: err instanceof Error ? err.message : String(err) }
  }
  self.postMessage(reply)
}
