// The one reader of server-sent events, for every consumer: the UI, the MCP tools' calls into the
// API and the tests. It parses with eventsource-parser (the maintained parser the MCP SDK uses
// too) and yields each message's event name and JSON data; it runs in the browser as on the server.
import { EventSourceParserStream } from "eventsource-parser/stream"

export interface SseMessage {
  /** The `event:` name, "message" when the server gave none. */
  event: string
  data: unknown
}

/** The messages of an event stream body as they arrive; a message without data is skipped. */
export async function* sseMessages(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage> {
  const reader = body
    .pipeThrough(new TextDecoderStream() as unknown as ReadableWritablePair<string, Uint8Array>)
    .pipeThrough(new EventSourceParserStream())
    .getReader()
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return
      if (value.data) yield { event: value.event ?? "message", data: JSON.parse(value.data) }
    }
  } finally {
    reader.cancel().catch(() => {})
  }
}
