// A size limit for JSON request bodies (streamed routes such as the gateway and volume import have
// none). A declared Content-Length over the limit is refused before reading; a chunked body is read
// up to the limit and no further.
import { HttpError } from "./http-error.ts"

const tooLarge = (limit: number) => new HttpError(413, "body_too_large", `the request body is larger than ${limit} bytes`)

export async function limitBody(req: Request, limit: number): Promise<Request> {
  const length = req.headers.get("content-length")
  if (length !== null) {
    if (Number(length) > limit) throw tooLarge(limit)
    return req
  }
  if (!req.body) return req
  const chunks: Uint8Array[] = []
  let size = 0
  for await (const chunk of req.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.length
    if (size > limit) throw tooLarge(limit)
    chunks.push(chunk)
  }
  const headers = new Headers(req.headers)
  headers.delete("transfer-encoding")
  return new Request(req.url, { method: req.method, headers, body: Buffer.concat(chunks), signal: req.signal })
}
