// What the file routes answer, the same for a volume's files and a container's: the handlers parse,
// pick the tree and call one of these.
import type * as v from "valibot"
import { invalid } from "../errors/errors.ts"
import { type Files, readText, type Sort, versionOf } from "./files.ts"
import { disposition, type FilePath, parsePath, pathOf } from "./paths.ts"
import type { listQuery, renameBody, textBody } from "./schemas.ts"

export async function listAnswer(files: Files, q: v.InferOutput<typeof listQuery>, signal?: AbortSignal) {
  const folder = parsePath(q)
  const page = {
    offset: q.offset ?? 0,
    limit: q.limit ?? 500,
    sort: (q.sort ?? "name") as Sort,
    reverse: q.order === "desc",
  }
  const listing = await files.list(folder, page, signal)
  return { ...pathOf(folder), ...listing, offset: page.offset, limit: page.limit }
}

/** A file's bytes: inline, or as an attachment named after it when `download`. */
export async function fileResponse(
  files: Files,
  path: FilePath,
  download: boolean,
  signal?: AbortSignal,
): Promise<Response> {
  const file = await files.read(path, signal)
  return new Response(file.body, {
    headers: {
      "content-type": "application/octet-stream",
      "last-modified": new Date(file.mtime * 1000).toUTCString(),
      "x-content-type-options": "nosniff",
      ...(download && { "content-disposition": disposition(path.at(-1)!) }),
    },
  })
}

/** A file or a folder as a tar named after it. */
export async function archiveResponse(files: Files, path: FilePath, signal?: AbortSignal): Promise<Response> {
  const tar = await files.archive(path, signal)
  return new Response(tar, {
    headers: {
      "content-type": "application/x-tar",
      "content-disposition": disposition(path.at(-1) ?? Buffer.from("root"), ".tar"),
    },
  })
}

export async function textAnswer(files: Files, path: FilePath) {
  return { ...pathOf(path), ...(await readText(files, path)) }
}

export async function writeText(files: Files, body: v.InferOutput<typeof textBody>) {
  const path = parsePath(body)
  const bytes = new TextEncoder().encode(body.text)
  await files.write(path, bytes, bytes.length, body.version)
  return { ...pathOf(path), version: versionOf(bytes) }
}

/** A request's raw body written to `path`; its length from Content-Length when it says. */
export async function writeBody(files: Files, path: FilePath, request: Request, version?: string) {
  if (!request.body) throw invalid("the body is the file's content", "missing_body")
  const length = request.headers.get("content-length")
  await files.write(path, request.body, length === null ? undefined : Number(length), version)
  return pathOf(path)
}

export async function unpackBody(files: Files, folder: FilePath, request: Request, signal?: AbortSignal) {
  if (!request.body) throw invalid("the body must be a tar archive", "missing_body")
  await files.unpack(folder, request.body, signal)
  return pathOf(folder)
}

export async function renameAnswer(files: Files, body: v.InferOutput<typeof renameBody>) {
  const from = parsePath({ path: body.from, path64: body.from64 }, "from")
  const to = parsePath({ path: body.to, path64: body.to64 }, "to")
  await files.rename(from, to)
  return pathOf(to)
}
