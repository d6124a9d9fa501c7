// A container's filesystem through the engine's archive API, running or stopped: the engine resolves
// every path inside the container's own root (a link there leads nowhere but into the container) and
// archives a link as a link. A folder is listed from the headers of its archive, whose data is read
// past, never kept: the archive holds everything below the folder, so a folder near the root costs
// as much as the files under it. Its names come as the engine writes them (UTF-8, as its archive's
// pax records say). A file is written as a tar of one entry with the owner and mode of the file it
// replaces; an upload's tar is received whole into a file of the data directory and checked before
// any of it reaches the engine, which then unpacks it over what is there, as `docker cp` does.
import { Readable } from "node:stream"
import tar from "tar-stream"
import type { Engine } from "../engine/client.ts"
import { conflict, invalid, notFound, unsupported } from "../errors/errors.ts"
import { tarGuard } from "../volumes/tar-scan.ts"
import { changed, type Files, type Kind, notRoot, paged, type RawEntry, binary, versionOfStream } from "./files.ts"
import { type FilePath, joinPath, shownPath } from "./paths.ts"
import { spooled } from "./spool.ts"
import { fileHeader, fileTar, firstEntry } from "./tar.ts"
import { checkUpload } from "./upload.ts"

const KINDS: Record<string, Kind> = { file: "file", directory: "folder", symlink: "link" }

/** The container's path for `path` ("/." for the root, so the archive's entries are "./..."). */
const absolute = (path: FilePath): Buffer =>
  path.length ? Buffer.concat([Buffer.from("/"), joinPath(path)]) : Buffer.from("/.")

const isNotFound = (err: unknown) =>
  (err as { status?: number })?.status === 404 || (err as { kind?: string })?.kind === "not_found"

/** The direct children of the archive's first entry, from the headers of every entry. */
export async function childrenOf(source: ReadableStream<Uint8Array>): Promise<RawEntry[]> {
  const extract = tar.extract()
  Readable.fromWeb(source as never).pipe(extract as unknown as NodeJS.WritableStream)
  const entries: RawEntry[] = []
  let first = true
  for await (const entry of extract) {
    const h = entry.header
    entry.resume()
    if (first) {
      first = false
      if (h.type !== "directory") throw invalid(`not a folder`, "not_a_folder")
      continue
    }
    const parts = h.name.replace(/\/+$/, "").split("/")
    if (parts.length !== 2) continue
    entries.push({
      name: binary(Buffer.from(parts[1]!)),
      kind: KINDS[h.type ?? ""] ?? "other",
      size: h.size ?? 0,
      mode: h.mode ?? 0,
      uid: h.uid ?? 0,
      gid: h.gid ?? 0,
      mtime: (h.mtime?.getTime() ?? 0) / 1000,
      ...(h.type === "symlink" && { target: binary(Buffer.from(h.linkname ?? "")) }),
    })
  }
  return entries
}

/** A pax header entry that names the next entry `name` (any bytes, any length). */
function paxName(name: Buffer): Buffer {
  const body = (len: number) => Buffer.concat([Buffer.from(`${len} path=`), name, Buffer.from("\n")])
  let len = body(0).length
  while (body(len).length !== len) len = body(len).length
  const record = body(len)
  const header = Buffer.from(fileHeader("PaxHeader", record.length))
  header[156] = 0x78 // 'x'
  let sum = 0
  header.fill(0x20, 148, 156)
  for (const b of header) sum += b
  header.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148, "ascii")
  return Buffer.concat([header, record, Buffer.alloc((512 - (record.length % 512)) % 512)])
}

/** A header for `name` with a type, owner and mode: a pax name first when the name is not short ASCII. */
function headerFor(name: Buffer, size: number, o: { type: string; mode: number; uid: number; gid: number }): Buffer {
  const ascii = name.length < 100 && name.every((b) => b >= 0x20 && b < 0x7f)
  const h = Buffer.from(fileHeader(ascii ? name.toString("latin1") : "entry", size, o.mode))
  h.write(`${o.uid.toString(8).padStart(7, "0")}\0`, 108, "ascii")
  h.write(`${o.gid.toString(8).padStart(7, "0")}\0`, 116, "ascii")
  h.write(o.type, 156, "ascii")
  let sum = 0
  h.fill(0x20, 148, 156)
  for (const b of h) sum += b
  h.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148, "ascii")
  return ascii ? h : Buffer.concat([paxName(name), h])
}

/** The files of the container `id` (its full id), through the engine; `spool` is a folder of the data directory for uploads. */
export function containerFiles(engine: Engine, id: string, spool: string): Files {
  /** The header of what is at `path`, or undefined when nothing is. */
  async function stat(path: FilePath): Promise<tar.Header | undefined> {
    const stream = await engine.getArchive(id, absolute(path)).catch((err) => {
      if (isNotFound(err)) return undefined
      throw err
    })
    if (!stream) return undefined
    const { header, body } = await firstEntry(stream)
    await body.cancel().catch(() => {})
    return header
  }

  const archive = (path: FilePath) =>
    engine.getArchive(id, absolute(path)).catch((err) => {
      throw isNotFound(err) ? notFound(`${shownPath(path)} does not exist in the container`, "file_not_found") : err
    })

  /** The file at `path` replaced by `size` bytes of `body`, with the owner and mode of the one it replaces. */
  async function replace(
    path: FilePath,
    body: ReadableStream<Uint8Array> | Uint8Array,
    size: number,
    version: string | undefined,
  ): Promise<void> {
    const old = await stat(path)
    if (old && old.type !== "file") throw invalid(`${shownPath(path)} is a ${old.type}, not a file`, "not_a_file")
    if (version !== undefined) {
      if (!old) throw changed(path)
      const current = (await firstEntry(await archive(path))).body
      if ((await versionOfStream(current)) !== version) throw changed(path)
    }
    const header = headerFor(path.at(-1)!, size, {
      type: "0",
      mode: old?.mode ?? 0o644,
      uid: old?.uid ?? 0,
      gid: old?.gid ?? 0,
    })
    await engine.putArchive(id, absolute(path.slice(0, -1)), fileTar(header, size, body))
  }

  return {
    async list(folder, page) {
      const entries = await childrenOf(await archive(folder)).catch((err) => {
        throw err?.code === "not_a_folder" ? invalid(`${shownPath(folder)} is not a folder`, "not_a_folder") : err
      })
      return paged(entries, page)
    },

    async read(path) {
      notRoot(path, "read as a file")
      const { header, body } = await firstEntry(await archive(path))
      if (header.type !== "file") {
        await body.cancel().catch(() => {})
        throw invalid(
          `${shownPath(path)} is ${header.type === "symlink" ? "a link" : `a ${header.type}`}, not a file`,
          "not_a_file",
        )
      }
      return { body, size: header.size ?? 0, mtime: (header.mtime?.getTime() ?? 0) / 1000 }
    },

    archive,

    async write(path, body, _size, version) {
      notRoot(path, "replaced")
      // The whole body first: the engine writes the file over the old one as the archive arrives.
      if (!(body instanceof Uint8Array))
        return spooled(spool, body, (file) => replace(path, file.stream(), file.size, version))
      await replace(path, body, body.length, version)
    },

    async unpack(folder, source) {
      const guard = tarGuard(source, checkUpload)
      await spooled(spool, guard.stream, (file) => engine.putArchive(id, absolute(folder), file.stream())).catch(
        (err) => {
          throw guard.error ?? err
        },
      )
    },

    async mkdir(path) {
      notRoot(path, "made")
      if (await stat(path)) throw conflict(`${shownPath(path)} exists already`, "file_exists")
      const head = headerFor(path.at(-1)!, 0, { type: "5", mode: 0o755, uid: 0, gid: 0 })
      await engine.putArchive(id, absolute(path.slice(0, -1)), Buffer.concat([head, Buffer.alloc(1024)]))
    },

    async rename() {
      throw unsupported(
        "a container's files are browsed, read, uploaded and edited; rename them inside it",
        "not_offered",
      )
    },

    async remove() {
      throw unsupported(
        "a container's files are browsed, read, uploaded and edited; remove them inside it",
        "not_offered",
      )
    },
  }
}

export type Change = { path: string; kind: "modified" | "added" | "deleted" }

const CHANGE_KINDS = ["modified", "added", "deleted"] as const

/** What changed in the container's filesystem against its image, sorted by path. */
export async function containerDiff(engine: Engine, id: string): Promise<Change[]> {
  const changes = (await engine.containerChanges(id)) ?? []
  return changes
    .map((c) => ({ path: c.Path, kind: CHANGE_KINDS[c.Kind] ?? "modified" }))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
}
