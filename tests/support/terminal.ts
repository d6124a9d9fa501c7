// A container shell's WebSocket as a test drives it: type into it, wait for output, see it close.
// Keys typed before the shell shows its prompt reach a terminal still in cooked mode (the kernel
// echoes them, Ctrl-C flushes what follows): a test that types control keys waits for the prompt.
export async function terminal(url: string, init: { headers?: Record<string, string> } = {}) {
  // Bun's WebSocket takes request headers (a session cookie) as a second argument.
  const ws = new WebSocket(url, init as never)
  ws.binaryType = "arraybuffer"
  let output = ""
  const decoder = new TextDecoder()
  ws.onmessage = (e) =>
    (output += typeof e.data === "string" ? e.data : decoder.decode(e.data as ArrayBuffer, { stream: true }))
  const closed = new Promise<CloseEvent>((r) => (ws.onclose = r))
  await new Promise((r, j) => ((ws.onopen = r), (ws.onerror = j)))
  const type = (s: string) => ws.send(new TextEncoder().encode(s))
  /** The first match of `re` in the output; throws with the screen's end when it does not come within 20 s. */
  const waitFor = async (re: RegExp) => {
    for (let i = 0; i < 2000 && !re.test(output); i++) await Bun.sleep(10)
    const m = output.match(re)
    if (!m) throw new Error(`${re} did not appear; the screen ends with:\n${JSON.stringify(output.slice(-600))}`)
    return m
  }
  /** Waits for the shell's prompt at the end of the output (a line editor may follow it with control sequences). */
  const prompt = () => waitFor(/[#$] (\x1b\[[\d;]*[A-Za-z]|\r)*$/)
  return { ws, type, waitFor, prompt, closed, output: () => output }
}
