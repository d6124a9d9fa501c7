// A backup brought back on this server, under its own name or a new one. The plan is the copy's
// (lib/copy/planner.ts), with the backup as the source: a taken name, a port in use, a volume that
// exists (unless `force`, which unpacks into it) refuse it; `dry_run` answers the plan and changes
// nothing. Each volume is unpacked from `restic dump` into the engine (lib/volumes), then the stack's
// records are written; anything that fails removes what the restore created, never a volume that was
// there before.
import * as v from "valibot"
import { serverInventory } from "../copy/copy.ts"
import { exportModel, importBody, importStack, type StackExport, type StackHost } from "../copy/export.ts"
import { COPY_DEFAULTS, plan, type Plan } from "../copy/planner.ts"
import type { Deadline } from "../engine/spawn.ts"
import { badRequest, conflict } from "../http/http-error.ts"
import { stackName } from "../stacks/name.ts"
import { importVolume } from "../volumes/transfer.ts"
import type { Backup } from "./snapshots.ts"
import type { Repo } from "./repos.ts"
import { restic, resticStream } from "./restic.ts"

export interface RestoreRequest {
  as?: string
  force?: boolean
  dry_run?: boolean
  allow_port_clash?: boolean
}

export interface RestoreResult {
  plan: Plan
  restored: boolean
}

const snapshotOf = (b: Backup, path: string) => b.pieces.find((p) => p.path === path)?.snapshot

async function readDoc(repo: Repo, b: Backup, deadline: Deadline): Promise<StackExport> {
  const doc = JSON.parse(await restic(repo, ["dump", snapshotOf(b, "stack.json")!, "/stack.json"], deadline))
  const checked = v.safeParse(importBody, doc)
  if (!checked.success) throw badRequest(`backup ${b.run} holds no stack document this server reads`, "invalid_backup")
  return doc as StackExport
}

/** The dumps of a backup's volumes: one may start ahead (restic takes a while to open a repository); those not taken are stopped. */
class Dumps {
  private readonly started = new Map<string, ReturnType<typeof resticStream>>()
  constructor(private readonly repo: Repo, private readonly backup: Backup, private readonly deadline: Deadline) {}

  start(volume: string): void {
    const path = `volumes/${volume}.tar`
    const snapshot = snapshotOf(this.backup, path)
    if (snapshot && !this.started.has(volume)) this.started.set(volume, resticStream(this.repo, ["dump", snapshot, `/${path}`], this.deadline))
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

export async function restoreStack(ctx: StackHost & { serverId: string }, repo: Repo, backup: Backup, req: RestoreRequest, deadline: Deadline): Promise<RestoreResult> {
  const dumps = new Dumps(repo, backup, deadline)
  const first = backup.pieces.find((p) => p.path.startsWith("volumes/"))?.path.slice("volumes/".length, -".tar".length)
  if (!req.dry_run && first) dumps.start(first)
  try {
    return await restoreWith(ctx, repo, backup, req, deadline, dumps)
  } finally {
    await dumps.drop()
  }
}

async function restoreWith(ctx: StackHost & { serverId: string }, repo: Repo, backup: Backup, req: RestoreRequest, deadline: Deadline, dumps: Dumps): Promise<RestoreResult> {
  const doc = await readDoc(repo, backup, deadline)
  const target = stackName(req.as ?? doc.name)
  const dst = await serverInventory(ctx)
  const held = doc.mounts.volumes.flatMap((v) => (v.name && snapshotOf(backup, `volumes/${v.name}.tar`) ? [v.name] : []))
  const thePlan = plan({
    model: exportModel(doc),
    source: { name: doc.name, volumes: held, images: [] },
    target: { name: target, stacks: dst.stacks, volumes: dst.volumes, ports: dst.ports, images: dst.images, containers: dst.containers },
    // A backup's source may be long gone: its volumes' fixed names are taken only if they exist here.
    sameServer: false,
    flags: { ...COPY_DEFAULTS, allow_binds: true, allow_port_clash: req.allow_port_clash ?? false },
  })
  if (req.force) thePlan.blockers = thePlan.blockers.filter((b) => b.code !== "volume_exists")
  if (req.dry_run) return { plan: thePlan, restored: false }
  if (thePlan.blockers.length) throw conflict(`the restore is blocked: ${thePlan.blockers.map((b) => b.message).join("; ")}`, "restore_blocked", { body: { plan: thePlan } })

  const undo: (() => Promise<unknown>)[] = []
  try {
    for (const vol of thePlan.volumes.filter((v) => v.transfer)) {
      const dump = dumps.take(vol.source)
      const result = await importVolume(ctx.engine, ctx.config.transferImage, vol.target, dump.stdout, req.force ?? false).catch(async (err) => {
        // The import may have failed before it read the dump: restic would wait on its output forever.
        dump.stop()
        await dump.done.catch(() => {})
        throw err
      })
      if (result.created) undo.push(() => ctx.engine.removeVolume(vol.target, { force: true }))
      // A dump that failed midway may have left a short tar behind in the volume: the restore fails.
      await dump.done
    }
    await importStack(ctx, { ...doc, name: target })
    undo.push(() => ctx.stacks.remove(target))
  } catch (err) {
    for (const step of undo.reverse()) await step().catch(() => {})
    throw err
  }
  return { plan: thePlan, restored: true }
}
