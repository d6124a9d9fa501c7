// A stack's backup: one restic run, made of one snapshot per piece, all tagged alike — the stack's
// export document (lib/copy/export.ts: compose, files, environment with secrets, versions; restic
// encrypts it) as stack.json, and each named volume's data as volumes/<volume>.tar, streamed from the
// engine (lib/volumes) into `restic backup --stdin`. A tar stream of unchanged files is the same bytes
// again, and restic's content-defined chunking finds them wherever they moved in it, so a second
// backup stores about what changed without a temporary copy of the data on this host. A run that
// fails forgets the snapshots it made, so a backup is whole or absent.
import { randomBytes } from "node:crypto"
import { exportStack, type StackExport, type StackHost } from "../copy/export.ts"
import { openVolume } from "../volumes/transfer.ts"
import type { Deadline } from "../engine/spawn.ts"
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

interface Summary {
  snapshot_id: string
  total_bytes_processed: number
  data_added: number
}

export const tags = (serverId: string, stack: string) => [`server:${serverId}`, `stack:${stack}`]

async function piece(repo: Repo, path: string, tagList: string[], host: string, data: ReadableStream<Uint8Array>, deadline: Deadline): Promise<Piece> {
  const args = ["backup", "--json", "--quiet", "--host", host, "--stdin", "--stdin-filename", path, ...tagList.flatMap((t) => ["--tag", t])]
  const [summary] = jsonLines<Summary>(await restic(repo, args, deadline, data), "summary")
  if (!summary) throw new Error(`restic backup of ${path} gave no summary`)
  return { path, snapshot: summary.snapshot_id, bytes: summary.total_bytes_processed, added: summary.data_added }
}

const text = (s: string) => new Blob([s]).stream()

/** The stack backed up, `hooks` run around its snapshot (lib/backups/hooks.ts). */
export async function backupStack(ctx: StackHost & { serverId: string }, repo: Repo, name: string, deadline: Deadline, hooks: Hooks = {}): Promise<BackupResult> {
  const doc = await exportStack(ctx, name)
  if (hooks.exec) await runExecHook(ctx.engine, name, hooks.exec, deadline.timeout)
  const snapshot = () => snapshotStack(ctx, repo, name, doc, deadline)
  return hooks.stop ? whileStopped(ctx.engine, name, snapshot) : snapshot()
}

async function snapshotStack(ctx: StackHost & { serverId: string }, repo: Repo, name: string, doc: StackExport, deadline: Deadline): Promise<BackupResult> {
  const run = `${new Date().toISOString().replace(/[-:]|\.\d+/g, "")}-${randomBytes(3).toString("hex")}`
  const tagList = [...tags(ctx.serverId, name), `version:${doc.current_version ?? 0}`, `run:${run}`]
  const pieces: Piece[] = []
  try {
    pieces.push(await piece(repo, "stack.json", tagList, ctx.serverId, text(JSON.stringify(doc)), deadline))
    const existing = new Set((await ctx.engine.listVolumes()).map((v) => v.Name))
    for (const v of doc.mounts.volumes) {
      if (!v.name || v.external || !existing.has(v.name)) continue
      const { tar, release } = await openVolume(ctx.engine, ctx.config.transferImage, v.name)
      try {
        pieces.push(await piece(repo, `volumes/${v.name}.tar`, tagList, ctx.serverId, tar, deadline))
      } finally {
        await release()
      }
    }
  } catch (err) {
    // A restic stopped midway may leave its lock behind: unlock removes the locks of restic processes gone.
    if (pieces.length)
      await restic(repo, ["unlock"], { timeout: 60 })
        .then(() => restic(repo, ["forget", "--prune", ...pieces.map((p) => p.snapshot)], { timeout: 300 }))
        .catch(() => {})
    throw err
  }
  const sum = (k: "bytes" | "added") => pieces.reduce((n, p) => n + p[k], 0)
  return { run, stack: name, version: doc.current_version, pieces, bytes: sum("bytes"), added: sum("added") }
}

/**
 * `restic forget --prune` of the stack's backups of this server by `keep`, each piece (stack.json, a
 * volume's tar) counted on its own; answers how many snapshots it removed.
 */
export async function forget(repo: Repo, serverId: string, stack: string, keep: Keep, deadline: Deadline): Promise<number> {
  const rules = Object.entries(keep).flatMap(([k, n]) => (n ? [`--keep-${k}`, String(n)] : []))
  if (!rules.length) return 0
  const args = ["forget", "--prune", "--json", "--host", serverId, "--tag", tags(serverId, stack).join(","), "--group-by", "host,paths", ...rules]
  const groups = JSON.parse((await restic(repo, args, deadline)).split("\n").find((l) => l.startsWith("[")) ?? "[]") as { remove?: unknown[] | null }[]
  return groups.reduce((n, g) => n + (g.remove?.length ?? 0), 0)
}
