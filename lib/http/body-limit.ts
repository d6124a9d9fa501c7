// A size limit for JSON request bodies (streamed routes such as the gateway and volume import have
// none). A declared Content-Length over the limit is refused before reading; a chunked body is read
// up to the limit and no further.
import { HttpError } from "./http-error.ts"

const tooLarge = (limit: number) => new HttpError(413, "body_too_large", `the request body is larger than ${limit} bytes`)

/** The body as text, refused with 413 past `limit` bytes. */
export async function readLimited(req: Request, limit: number): Promise<string> {
  const length = req.headers.get("content-length")
  if (length !== null && Number(length) > limit) throw tooLarge(limit)
  if (!req.body) return ""
  const chunks: Uint8Array[] = []
  let size = 0
  for await (const chunk of req.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.length
    if (size > limit) throw tooLarge(limit)
    chunks.push(chunk)
  }
  return Buffer.concat(chunks).toString("utf8")
}
