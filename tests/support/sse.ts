// Reads server-sent events through the service's own reader: the JSON data of each message, as they arrive.
import { sseMessages as messagesOf } from "#lib/http/sse-read.ts"

export async function* sseMessages(res: Response): AsyncGenerator<any> {
  for await (const { data } of messagesOf(res.body!)) yield data
}

/** Collects messages until `until` says stop (or the stream ends). */
export async function collect(res: Response, until: (messages: any[]) => boolean = () => false): Promise<any[]> {
  const out: any[] = []
  for await (const m of sseMessages(res)) {
    out.push(m)
    if (until(out)) break
  }
  return out
}
