// A request whose client goes away before its body ended: its head and the first part of its body
// sent on a socket of its own, which is then closed. The body is chunked, or has a Content-Length
// the part falls short of.
import { connect } from "node:net"

export async function cutUpload(
  url: string,
  method: string,
  path: string,
  part: Uint8Array,
  length?: number,
): Promise<void> {
  const { hostname, port } = new URL(url)
  const socket = connect(Number(port), hostname)
  await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject))
  const framing = length === undefined ? "transfer-encoding: chunked" : `content-length: ${length}`
  socket.write(`${method} ${path} HTTP/1.1\r\nhost: ${hostname}:${port}\r\n${framing}\r\n\r\n`)
  socket.write(
    length === undefined
      ? Buffer.concat([Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from("\r\n")])
      : part,
  )
  // Sent, not only queued, before the socket goes.
  await new Promise<void>((resolve) => socket.write("", () => resolve()))
  await Bun.sleep(200)
  socket.destroy()
}
