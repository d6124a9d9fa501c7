// A size limit for JSON request bodies (streamed routes such as the gateway and volume import have
// none). A declared Content-Length over the limit is refused before reading; a chunked body is read
// up to the limit and no further. A body nested deeper than a few dozen levels is refused before it
// is parsed: no request needs more, and a refused value's error message pretty-prints it, which takes
// time quadratic in its depth.
import { HttpError } from "./http-error.ts"

/** How deep a JSON body may nest arrays and objects. */
export const JSON_DEPTH_MAX = 64

const tooLarge = (limit: number) =>
  new HttpError(413, "body_too_large", `the request body is larger than ${limit} bytes`)

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

const OPEN_ARRAY = 0x5b,
  OPEN_OBJECT = 0x7b,
  CLOSE_ARRAY = 0x5d,
  CLOSE_OBJECT = 0x7d,
  QUOTE = 0x22,
  BACKSLASH = 0x5c

/** Refuses with 400 `json_too_deep` a JSON text whose arrays and objects nest deeper than `max`: one pass, strings skipped. */
export function checkJsonDepth(text: string, max = JSON_DEPTH_MAX): void {
  let depth = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === QUOTE) {
      for (i++; i < text.length && text.charCodeAt(i) !== QUOTE; i++) if (text.charCodeAt(i) === BACKSLASH) i++
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > max)
        throw new HttpError(400, "json_too_deep", `the request body nests arrays and objects more than ${max} deep`)
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) depth--
  }
}
