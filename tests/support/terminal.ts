// A container shell's WebSocket as a test drives it: type into it, wait for output, see it close.
export async function terminal(url: string) {
  const ws = new WebSocket(url)
  ws.binaryType = "arraybuffer"
  let output = ""
  ws.onmessage = (e) => (output += typeof e.data === "string" ? e.data : new TextDecoder().decode(e.data as ArrayBuffer))
  const closed = new Promise<CloseEvent>((r) => (ws.onclose = r))
  await new Promise((r, j) => ((ws.onopen = r), (ws.onerror = j)))
  const type = (s: string) => ws.send(new TextEncoder().encode(s))
  const waitFor = async (re: RegExp) => {
    for (let i = 0; i < 2000 && !re.test(output); i++) await Bun.sleep(10)
    return output.match(re)
  }
  return { ws, type, waitFor, closed, output: () => output }
}
