// Reads server-sent events: the JSON data of each message, as they arrive.
export async function* sseMessages(res: Response): AsyncGenerator<any> {
  const reader = res.body!.getReader()
  const decoder = new TextDecoder()
  let buf = ""
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return
      buf += decoder.decode(value, { stream: true })
      let end: number
      while ((end = buf.indexOf("\n\n")) >= 0) {
        const data = buf.slice(0, end).split("\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).join("\n")
        buf = buf.slice(end + 2)
        if (data) yield JSON.parse(data)
      }
    }
  } finally {
    reader.cancel().catch(() => {})
  }
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
