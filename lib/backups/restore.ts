// A backup brought back on this server or on a node of the registry (through the copy's sides, with
// the cluster token), under its own name or a new one. The plan is the copy's
// (lib/copy/planner.ts), with the backup as the source: a taken name, a port in use, a volume that
// exists (unless `force`, which unpacks into it) refuse it; `dry_run` answers the plan and changes
// nothing. A volume's folder snapshot (volumes/<volume>) is restored by restic straight into a volume
// created for it when the engine is local (lib/volumes/folder.ts); otherwise, and for a volume's tar
// (volumes/<volume>.tar, older backups), each volume is unpacked from `restic dump` into the engine
// (lib/volumes), a folder snapshot dumped as a tar of its tree. The stack's records are written
// meanwhile; anything that fails removes what the restore created, never a volume that was there before.
import { randomBytes } from "node:crypto"
import { readdirSync, renameSync } from "node:fs"
import { join } from "node:path"
import * as v from "valibot"
import { sideOf, type CopyDeps, type Side } from "../copy/copy.ts"
import { exportModel, importBody, type StackExport } from "../copy/export.ts"
import { COPY_DEFAULTS, plan, type Plan } from "../copy/planner.ts"
import type { Engine } from "../engine/client.ts"
import type { Deadline } from "../engine/spawn.ts"
import { conflict, invalid, isDomainError } from "../errors/errors.ts"
import { stackName } from "../stacks/name.ts"
import { importVolume, TRANSFER_LABEL } from "../volumes/transfer.ts"
import type { Backup } from "./snapshots.ts"
import type { Repo } from "./repos.ts"
import { restic, resticStream } from "./restic.ts"
import { holdsData, restoreBind } from "./binds.ts"
import { isLocal, volumeFolder } from "../volumes/folder.ts"
import { realPath, within } from "../stacks/host-paths.ts"

export interface RestoreRequest {
  /** A node of the registry to restore on (default: this server). */
  to?: string
  as?: string
  force?: boolean
  dry_run?: boolean
  allow_port_clash?: boolean
  /** Also restore the backup's bind mounts to their host paths (this server only). */
  binds?: boolean
}

export interface RestoreResult {
  plan: Plan
  restored: boolean
}

const snapshotOf = (b: Backup, path: string) => b.pieces.find((p) => p.path === path)?.snapshot

/** A volume's piece in the backup: its folder's snapshot, or its tar's. */
function volumePiece(b: Backup, volume: string): { snapshot: string; folder: boolean } | undefined {
  const folder = snapshotOf(b, `volumes/${volume}`)
  if (folder) return { snapshot: folder, folder: true }
  const tar = snapshotOf(b, `volumes/${volume}.tar`)
  return tar ? { snapshot: tar, folder: false } : undefined
}

/** The volumes a backup holds, in its order. */
const volumesOf = (b: Backup) =>
  b.pieces.flatMap((p) =>
    p.path.startsWith("volumes/") ? [p.path.slice("volumes/".length).replace(/\.tar$/, "")] : [],
  )

async function readDoc(repo: Repo, b: Backup, deadline: Deadline): Promise<StackExport> {
  const doc = JSON.parse(
    await restic(repo, ["dump", snapshotOf(b, "stack.json")!, "/stack.json"], deadline, { aside: true }),
  )
  const checked = v.safeParse(importBody, doc)
  if (!checked.success) throw invalid(`backup ${b.run} holds no stack document this server reads`, "invalid_backup")
  return doc as StackExport
}

/** The dumps of a backup's volumes: one may start ahead (restic takes a while to open a repository); those not taken are stopped. */
class Dumps {
  private readonly started = new Map<string, ReturnType<typeof resticStream>>()
  constructor(
    private readonly repo: Repo,
    private readonly backup: Backup,
    private readonly deadline: Deadline,
  ) {}

  start(volume: string): void {
    const piece = volumePiece(this.backup, volume)
    if (piece && !this.started.has(volume))
      this.started.set(
        volume,
        resticStream(this.repo, ["dump", piece.snapshot, piece.folder ? "/" : `/volumes/${volume}.tar`], this.deadline),
      )
  }

  take(volume: string): ReturnType<typeof resticStream> {
    this.start(volume)
    const dump = this.started.get(volume)!
    this.started.delete(volume)
    return dump
  }

  async drop(): Promise<void> {
    for (const dump of this.started.values()) {
      dump.stop()
      await dump.done.catch(() => {})
    }
    this.started.clear()
  }
}

/**
 * A volume's folder snapshot restored by restic, confined to a folder (lib/volumes/folder.ts), into a
 * volume of a random name of its own while the restore reads the backup's records and plans; `into`
 * moves its entries into the restore's new volume (the same file system, and a folder nothing else
 * mounts or writes). Dropped, the volume goes.
 */
class Ahead {
  private readonly stop = new AbortController()
  private done: Promise<string> = Promise.resolve("")

  private readonly engine: Engine
  /** The backup's volume whose snapshot this is. */
  readonly volume: string
  readonly snapshot: string
  /** The working volume it is restored into, and its folder. */
  private readonly working: { name: string; folder: string }

  private constructor(o: {
    engine: Engine
    volume: string
    snapshot: string
    working: { name: string; folder: string }
  }) {
    this.engine = o.engine
    this.volume = o.volume
    this.snapshot = o.snapshot
    this.working = o.working
  }

  /** The restore of `volume`'s folder snapshot started, or undefined when the new volume's folder is not this host's. */
  static async start(
    engine: Engine,
    { repo, volume, snapshot, deadline }: { repo: Repo; volume: string; snapshot: string; deadline: Deadline },
  ): Promise<Ahead | undefined> {
    const name = `harbormaster-restore-${randomBytes(8).toString("hex")}`
    const folder = await volumeFolder(engine, await engine.createVolume(name, { [TRANSFER_LABEL]: "1" }))
    if (!folder) {
      await engine.removeVolume(name, { force: true }).catch(() => {})
      return undefined
    }
    const ahead = new Ahead({ engine, volume, snapshot, working: { name, folder } })
    const signal = deadline.signal ? AbortSignal.any([deadline.signal, ahead.stop.signal]) : ahead.stop.signal
    ahead.done = restic(
      repo,
      ["restore", snapshot, "--target", "."],
      { ...deadline, signal },
      { folder: { path: folder, write: true } },
    )
    ahead.done.catch(() => {})
    return ahead
  }

  /** Waits for the restore and moves what it wrote into `folder` (a new, empty volume's). */
  async into(folder: string): Promise<void> {
    await this.done
    for (const entry of readdirSync(this.working.folder))
      renameSync(join(this.working.folder, entry), join(folder, entry))
  }

  async drop(): Promise<void> {
    this.stop.abort()
    await this.done.catch(() => {})
    await this.engine.removeVolume(this.working.name, { force: true }).catch(() => {})
  }
}

/**
 * A volume's folder snapshot restored by restic straight into a volume created for it, confined to
 * its folder (lib/volumes/folder.ts), or moved there from `ahead`; false, having changed nothing, when
 * the engine is not local, the new volume's folder is not this host's, or the volume exists: force
 * unpacks into it through the stream, whose extraction replaces an entry of another kind (a symlink
 * where the backup has a folder) as it always did, where restic 0.14's restore stops at it. A failure
 * removes the volume.
 */
async function restoreFolder(
  engine: Engine,
  {
    repo,
    snapshot,
    volume: name,
    deadline,
    ahead,
  }: { repo: Repo; snapshot: string; volume: string; deadline: Deadline; ahead?: Ahead },
): Promise<boolean> {
  if (!(await isLocal(engine))) return false
  const exists = await engine.inspectVolume(name).then(
    () => true,
    (err) => {
      if (isDomainError(err, "not_found")) return false
      throw err
    },
  )
  if (exists) return false
  const created = await engine.createVolume(name)
  try {
    const folder = await volumeFolder(engine, created)
    if (!folder) {
      await engine.removeVolume(name, { force: true })
      return false
    }
    if (ahead) await ahead.into(folder)
    else await restic(repo, ["restore", snapshot, "--target", "."], deadline, { folder: { path: folder, write: true } })
    return true
  } catch (err) {
    await engine.removeVolume(name, { force: true }).catch(() => {})
    throw err
  }
}

/** What a restore needs of this server: the copy's, and the roots its binds may come back under. */
export type RestoreHost = CopyDeps & { config: { bindRoots: readonly string[] } }

/** The first volume's folder snapshot of `b` restored ahead (see Ahead), or undefined when it has none. */
async function aheadOf(engine: Engine, repo: Repo, b: Backup, deadline: Deadline): Promise<Ahead | undefined> {
  const first = volumesOf(b)[0]
  const piece = first === undefined ? undefined : volumePiece(b, first)
  return piece?.folder ? Ahead.start(engine, { repo, volume: first!, snapshot: piece.snapshot, deadline }) : undefined
}

/**
 * The restore of `found`, which may still be being looked up: restic opens the repository and lists
 * its snapshots, a while. With `guess` (the newest backup of the stack this process made or listed),
 * its first volume's data starts coming here meanwhile, and is kept only when the backup found holds
 * that very snapshot (the listing decides, always).
 */
export async function restoreStack(
  ctx: RestoreHost,
  req: RestoreRequest,
  { repo, found, deadline, guess }: { repo: Repo; found: Backup | Promise<Backup>; deadline: Deadline; guess?: Backup },
): Promise<RestoreResult> {
  if (req.to !== undefined && req.force)
    throw invalid(
      "force unpacks into existing volumes on this server only; restore to a node into volumes that do not exist there",
      "force_local_only",
    )
  if (req.to !== undefined && req.binds)
    throw invalid("bind mounts are restored to their host paths on this server only", "binds_local_only")
  // The destination first: an unknown node, or no cluster token, refuses the restore before restic runs.
  const dst = await sideOf(ctx, req.to)
  const local = req.to === undefined && !req.dry_run && (await isLocal(ctx.engine))
  let ahead = local && guess ? await aheadOf(ctx.engine, repo, guess, deadline) : undefined
  let backup: Backup
  try {
    backup = await found
  } catch (err) {
    await ahead?.drop()
    throw err
  }
  if (ahead && volumePiece(backup, ahead.volume)?.snapshot !== ahead.snapshot) {
    await ahead.drop()
    ahead = undefined
  }
  const dumps = new Dumps(repo, backup, deadline)
  // The first volume's data starts coming while the backup's records are read and planned (restic
  // takes a while to open a repository): a folder snapshot restored here into a volume of its own, or
  // the dump of the others.
  const first = volumesOf(backup)[0]
  const direct = local && !!(first !== undefined && volumePiece(backup, first)!.folder)
  ahead ??= direct ? await aheadOf(ctx.engine, repo, backup, deadline) : undefined
  if (!req.dry_run && first && !direct) dumps.start(first)
  try {
    return await restoreWith(ctx, req, { side: dst, repo, backup, deadline, dumps, ahead })
  } finally {
    await dumps.drop()
    await ahead?.drop()
  }
}

/** The restore of `backup` to `side` (this server or a node), its data coming from `dumps` or `ahead`. */
async function restoreWith(
  ctx: RestoreHost,
  req: RestoreRequest,
  from: { side: Side; repo: Repo; backup: Backup; deadline: Deadline; dumps: Dumps; ahead: Ahead | undefined },
): Promise<RestoreResult> {
  const { side, repo, backup, deadline, dumps, ahead } = from
  const [doc, dst] = await Promise.all([readDoc(repo, backup, deadline), side.inventory()])
  const target = stackName(req.as ?? doc.name)
  const held = doc.mounts.volumes.flatMap((v) => (v.name && volumePiece(backup, v.name) ? [v.name] : []))
  const thePlan = plan({
    model: exportModel(doc),
    source: { name: doc.name, volumes: held, images: [] },
    target: {
      name: target,
      stacks: dst.stacks,
      volumes: dst.volumes,
      ports: dst.ports,
      images: dst.images,
      containers: dst.containers,
    },
    // A backup's source may be long gone: its volumes' fixed names are taken only if they exist here.
    sameServer: false,
    flags: { ...COPY_DEFAULTS, allow_binds: true, allow_port_clash: req.allow_port_clash ?? false },
  })
  if (req.force) thePlan.blockers = thePlan.blockers.filter((b) => b.code !== "volume_exists")
  // The binds asked for come back to their paths, which must still lie under SVC_BIND_ROOTS here.
  const roots = ctx.config.bindRoots.map(realPath)
  const binds = req.binds
    ? backup.pieces.flatMap((p) =>
        p.path.startsWith("binds/") ? [{ path: p.path.slice("binds".length), snapshot: p.snapshot }] : [],
      )
    : []
  for (const { path } of binds) {
    if (!roots.some((root) => within(realPath(path), root)))
      thePlan.blockers.push({ code: "bind_refused", message: `host path ${path} is not under SVC_BIND_ROOTS here` })
    else if (holdsData(path) && !req.force)
      thePlan.blockers.push({
        code: "bind_not_empty",
        message: `host path ${path} holds data (force restores over it)`,
      })
    else
      thePlan.warnings.push(
        `host path ${path} is restored from the backup${holdsData(path) ? ", over what it holds" : ""}`,
      )
  }
  if (req.dry_run) return { plan: thePlan, restored: false }
  if (thePlan.blockers.length)
    throw conflict(`the restore is blocked: ${thePlan.blockers.map((b) => b.message).join("; ")}`, "restore_blocked", {
      fields: { plan: thePlan },
    })

  const undo: (() => unknown)[] = []
  // The stack's records are written (not started) while its data comes in; a failure removes both.
  const records = side.importStack({ ...doc, name: target }).then(() => void undo.push(() => side.removeStack(target)))
  records.catch(() => {})
  try {
    for (const vol of thePlan.volumes.filter((v) => v.transfer)) {
      const piece = volumePiece(backup, vol.source)!
      if (
        req.to === undefined &&
        piece.folder &&
        (await restoreFolder(ctx.engine, {
          repo,
          snapshot: piece.snapshot,
          volume: vol.target,
          deadline,
          ahead: ahead?.volume === vol.source ? ahead : undefined,
        }))
      ) {
        undo.push(() => side.removeVolume(vol.target))
        continue
      }
      const dump = dumps.take(vol.source)
      const into =
        req.to === undefined
          ? importVolume(ctx.engine, ctx.config.transferImage, {
              volume: vol.target,
              tar: dump.stdout,
              force: req.force,
            })
          : side.importVolume(vol.target, dump.stdout)
      const result = await into.catch(async (err) => {
        // The import may have failed before it read the dump: restic would wait on its output forever.
        dump.stop()
        await dump.done.catch(() => {})
        throw err
      })
      if (result.created) undo.push(() => side.removeVolume(vol.target))
      // A dump that failed midway may have left a short tar behind in the volume: the restore fails.
      await dump.done
    }
    for (const bind of binds) undo.push(await restoreBind(repo, bind.snapshot, bind.path, deadline))
    await records
  } catch (err) {
    await records.catch(() => {})
    for (const step of undo.reverse())
      await Promise.resolve()
        .then(step)
        .catch(() => {})
    throw err
  }
  return { plan: thePlan, restored: true }
}
