// A stack's backup: one restic run, made of one snapshot per piece, all tagged alike — the stack's
// export document (lib/copy/export.ts: compose, files, environment with secrets, versions; restic
// encrypts it) as stack.json, and each named volume's data. When the engine keeps its volumes on this
// host (proved, lib/volumes/folder.ts), restic reads the volume's own folder, confined there, as the
// piece volumes/<volume>: restic's own walk, with the previous snapshot of that folder as its parent,
// so unchanged files are not even read again. Otherwise the volume goes as a tar stream from the
// engine (lib/volumes) into `restic backup --stdin` as volumes/<volume>.tar: a tar stream of unchanged
// files is the same bytes again, and restic's content-defined chunking finds them wherever they moved
// in it, so a second backup stores about what changed without a temporary copy of the data on this
// host. On request, the data of its bind mounts under SVC_BIND_ROOTS too, each a snapshot of the host
// path that restic reads itself (binds<path>). A run that fails forgets the snapshots it made, so a
// backup is whole or absent.
import { randomBytes } from "node:crypto"
import { existsSync } from "node:fs"
import { exportStack, type StackExport, type StackHost } from "../copy/export.ts"
import { measureVolumes, openVolume } from "../volumes/transfer.ts"
import { realPath, within } from "../stacks/host-paths.ts"
import type { Deadline } from "../engine/spawn.ts"
import { volumeFolder } from "../volumes/folder.ts"
import { runExecHook, whileStopped, type Hooks } from "./hooks.ts"
import type { Keep, Repo } from "./repos.ts"
import { jsonLines, restic } from "./restic.ts"

export interface Piece {
  path: string
  snapshot: string
  /** Bytes read, and bytes new to the repository (after deduplication, before compression). */
  bytes: number
  added: number
}

export interface BackupResult {
  run: string
  stack: string
  version: number | null
  pieces: Piece[]
  bytes: number
  added: number
}

/** How far a backup is: the piece restic reads, its bytes read so far and, when known ahead, its size. */
export interface Progress {
  piece: string
  bytes_done: number
  total_bytes: number | null
  seconds_elapsed: number
}

interface Status {
  bytes_done?: number
  seconds_elapsed?: number
}

interface Summary {
  snapshot_id: string
  total_bytes_processed: number
  data_added: number
  total_duration: number
}

export const tags = (serverId: string, stack: string) => [`server:${serverId}`, `stack:${stack}`]

/** The tag of a bind's snapshot, whose piece is `binds<host path>`. */
export const BIND_TAG = "piece:bind"

/** The tag of a volume's folder snapshot, whose piece is `volumes/<volume>` (older backups hold `volumes/<volume>.tar`). */
export const FOLDER_TAG = "piece:volumes/"

/** What a backup holds beside the stack's records and volumes. */
/** A stack's backup: into which repository, until when, with which hooks, told to whom. */
export interface BackupRequest {
  repo: Repo
  stack: string
  deadline: Deadline
  hooks?: Hooks
  /** Told as restic reads. */
  progress?: (p: Progress) => void
  /** The data of its bind mounts under these roots (SVC_BIND_ROOTS), each read by restic from the host path itself. */
  bindRoots?: readonly string[]
}

/** What every restic of one backup run is told: the repository, this server as its host, the run's tags, the deadline, whom to tell. */
interface RunInto {
  repo: Repo
  host: string
  tags: string[]
  deadline: Deadline
  progress?: (p: Progress) => void
}

/** The host paths of the stack's data binds that lie under one of `roots` and exist. */
export function bindPaths(doc: StackExport, roots: readonly string[]): string[] {
  const real = roots.map(realPath)
  const paths = doc.mounts.binds
    .filter((b) => !b.file && existsSync(b.source) && real.some((root) => within(realPath(b.source), root)))
    .map((b) => b.source)
  return [...new Set(paths)].sort()
}

/** Status lines a second that restic prints while it reads, when progress is asked for. */
const STATUS_FPS = "2"

/** `data` backed up through restic's standard input as the piece `path`; `total` its size measured before, for the progress. */
async function piece(
  { repo, host, tags: tagList, deadline, progress }: RunInto,
  { path, data, total = null }: { path: string; data: ReadableStream<Uint8Array>; total?: number | null },
): Promise<Piece> {
  const args = [
    "backup",
    "--json",
    ...(progress ? [] : ["--quiet"]),
    "--host",
    host,
    "--stdin",
    "--stdin-filename",
    path,
    ...tagList.flatMap((t) => ["--tag", t]),
  ]
  const onLine =
    progress &&
    ((line: string) => {
      const [status] = jsonLines<Status>(line, "status")
      if (status)
        progress({
          piece: path,
          bytes_done: status.bytes_done ?? 0,
          total_bytes: total,
          seconds_elapsed: status.seconds_elapsed ?? 0,
        })
    })
  const [summary] = jsonLines<Summary>(
    await restic(repo, args, deadline, { stdin: data, onLine, env: progress && { RESTIC_PROGRESS_FPS: STATUS_FPS } }),
    "summary",
  )
  if (!summary) throw new Error(`restic backup of ${path} gave no summary`)
  progress?.({
    piece: path,
    bytes_done: summary.total_bytes_processed,
    total_bytes: total,
    seconds_elapsed: Math.round(summary.total_duration),
  })
  return { path, snapshot: summary.snapshot_id, bytes: summary.total_bytes_processed, added: summary.data_added }
}

const text = (s: string) => new Blob([s]).stream()

/**
 * A folder backed up by restic itself (no stream through this process) as the piece `name`, found by
 * its extra tag: a bind's host path (its absolute path), or a volume's own folder, read from inside
 * as "." in its confinement (lib/volumes/folder.ts), so the snapshot holds the volume's tree as it is
 * (`restic dump <id> /` gives it back as a tar) and its paths the folder's, which stays the same for
 * the volume: restic finds the previous snapshot of it as its parent, and forget groups it alone.
 */
async function folderPiece(
  { repo, host, tags: tagList, deadline, progress }: RunInto,
  {
    name,
    target,
    total = null,
  }: { name: string; target: { tag: string; path: string; folder?: string }; total?: number | null },
): Promise<Piece> {
  const args = [
    "backup",
    "--json",
    ...(progress ? [] : ["--quiet"]),
    "--host",
    host,
    ...[...tagList, target.tag].flatMap((t) => ["--tag", t]),
    target.path,
  ]
  const onLine =
    progress &&
    ((line: string) => {
      const [status] = jsonLines<Status & { total_bytes?: number }>(line, "status")
      if (status)
        progress({
          piece: name,
          bytes_done: status.bytes_done ?? 0,
          total_bytes: total ?? status.total_bytes ?? null,
          seconds_elapsed: status.seconds_elapsed ?? 0,
        })
    })
  const folder = target.folder === undefined ? undefined : { path: target.folder, write: false }
  const [summary] = jsonLines<Summary>(
    await restic(repo, args, deadline, { onLine, env: progress && { RESTIC_PROGRESS_FPS: STATUS_FPS }, folder }),
    "summary",
  )
  if (!summary) throw new Error(`restic backup of ${name} gave no summary`)
  progress?.({
    piece: name,
    bytes_done: summary.total_bytes_processed,
    total_bytes: total,
    seconds_elapsed: Math.round(summary.total_duration),
  })
  return { path: name, snapshot: summary.snapshot_id, bytes: summary.total_bytes_processed, added: summary.data_added }
}

/** The stack backed up, `hooks` run around its snapshot (lib/backups/hooks.ts); `progress` told as restic reads. */
export async function backupStack(ctx: StackHost & { serverId: string }, req: BackupRequest): Promise<BackupResult> {
  const { stack: name, hooks = {} } = req
  const doc = await exportStack(ctx, name)
  if (hooks.exec) await runExecHook(ctx.engine, name, hooks.exec, req.deadline)
  const snapshot = () => snapshotStack(ctx, doc, req)
  return hooks.stop ? whileStopped(ctx.engine, ctx.stacks.dataDir, name, snapshot) : snapshot()
}

async function snapshotStack(
  ctx: StackHost & { serverId: string },
  doc: StackExport,
  { repo, stack: name, deadline, progress, bindRoots }: BackupRequest,
): Promise<BackupResult> {
  const run = `${new Date().toISOString().replace(/[-:]|\.\d+/g, "")}-${randomBytes(3).toString("hex")}`
  const into: RunInto = {
    repo,
    host: ctx.serverId,
    tags: [...tags(ctx.serverId, name), `version:${doc.current_version ?? 0}`, `run:${run}`],
    deadline,
    progress,
  }
  const pieces: Piece[] = []
  // The pieces go in one after another: with the records written beside the data, a backup into a
  // repository whose disk filled up was seen to hang past a minute, where one restic alone fails at once.
  try {
    const json = JSON.stringify(doc)
    pieces.push(await piece(into, { path: "stack.json", data: text(json), total: Buffer.byteLength(json) }))
    const existing = new Set((await ctx.engine.listVolumes()).map((v) => v.Name))
    const names = doc.mounts.volumes.flatMap((v) => (v.name && !v.external && existing.has(v.name) ? [v.name] : []))
    // The volumes' sizes, for the progress's totals (the tar adds its headers to them).
    const sizes = progress && names.length ? await measureVolumes(ctx.engine, ctx.config.transferImage, names) : {}
    for (const name of names) {
      const folder = await volumeFolder(ctx.engine, name)
      if (folder) {
        pieces.push(
          await folderPiece(into, {
            name: `volumes/${name}`,
            target: { tag: `${FOLDER_TAG}${name}`, path: ".", folder },
            total: sizes[name] ?? null,
          }),
        )
        continue
      }
      const { tar, release } = await openVolume(ctx.engine, ctx.config.transferImage, name)
      try {
        pieces.push(await piece(into, { path: `volumes/${name}.tar`, data: tar, total: sizes[name] ?? null }))
      } finally {
        await release()
      }
    }
    if (bindRoots)
      for (const path of bindPaths(doc, bindRoots))
        pieces.push(await folderPiece(into, { name: `binds${path}`, target: { tag: BIND_TAG, path } }))
  } catch (err) {
    // A restic stopped midway may leave its lock behind: unlock removes the locks of restic processes gone.
    // The run's snapshots are found by its tag: a restic that could not read some files of a folder
    // (exit 3, a file swapped under it) failed the run but wrote a snapshot of the rest.
    await restic(repo, ["unlock"], { timeout: 60 })
      .then(() => restic(repo, ["snapshots", "--json", "--host", ctx.serverId, "--tag", `run:${run}`], { timeout: 60 }))
      .then((out) => {
        const ids = (JSON.parse(out || "[]") as { id: string }[]).map((s) => s.id)
        return ids.length ? restic(repo, ["forget", "--prune", ...ids], { timeout: 300 }) : ""
      })
      .catch(() => {})
    throw err
  }
  const sum = (k: "bytes" | "added") => pieces.reduce((n, p) => n + p[k], 0)
  return { run, stack: name, version: doc.current_version, pieces, bytes: sum("bytes"), added: sum("added") }
}

/**
 * `restic forget --prune` of the stack's backups of this server by `keep`, each piece (stack.json, a
 * volume's folder or tar, a bind) counted on its own; answers how many snapshots it removed.
 */
export async function forget(
  repo: Repo,
  { serverId, stack, keep }: { serverId: string; stack: string; keep: Keep },
  deadline: Deadline,
): Promise<number> {
  const rules = Object.entries(keep).flatMap(([k, n]) => (n ? [`--keep-${k}`, String(n)] : []))
  if (!rules.length) return 0
  const args = [
    "forget",
    "--prune",
    "--json",
    "--host",
    serverId,
    "--tag",
    tags(serverId, stack).join(","),
    "--group-by",
    "host,paths",
    ...rules,
  ]
  const groups = JSON.parse(
    (await restic(repo, args, deadline)).split("\n").find((l) => l.startsWith("[")) ?? "[]",
  ) as { remove?: unknown[] | null }[]
  return groups.reduce((n, g) => n + (g.remove?.length ?? 0), 0)
}
