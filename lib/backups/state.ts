// The service's own state backed up into a restic repository, and restored on a new machine: the data
// directory (the stacks' records and versions, users, sessions and tokens, the audit log, the backup
// repositories, registries, alert channels and rules, update policies, cluster membership, the
// server's identity) but what is no state: the stacks' folders (their data goes into each stack's own
// backup), the rooms compose runs in, compose runs' docker configurations and the intents of
// operations under way. Its secrets are sealed (lib/data/sealed.ts): the snapshot holds none in the
// clear, and the key, kept apart, opens them on the new machine.
//
// restic reads the data directory itself; each file is written atomically, so each is whole, old or
// new, though two files written during the backup may be of either side of it.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { renameDurably } from "../data/datadir.ts"
import type { Deadline } from "../engine/spawn.ts"
import { conflict, invalid, notFound } from "../errors/errors.ts"
import type { Repo } from "./repos.ts"
import { jsonLines, restic } from "./restic.ts"

/** The tag of a state snapshot, beside `server:<id>`. */
export const STATE_TAG = "harbormaster-state"

/** What of the data directory is left out, relative to it. */
export const NOT_STATE = ["stacks", "clear", "secrets/docker", "intents"] as const

export interface StateBackup {
  snapshot: string
  time: string
  /** The data directory it was taken from. */
  path: string
  server: string | null
}

interface Snapshot {
  id: string
  short_id?: string
  time: string
  paths: string[]
  tags?: string[]
}

/** The data directory backed up as one snapshot; its id and what restic read and added. */
export async function backupState(
  repo: Repo,
  dataDir: string,
  serverId: string,
  deadline: Deadline,
): Promise<{ snapshot: string; bytes: number; added: number }> {
  const dir = resolve(dataDir)
  const out = await restic(
    repo,
    [
      "backup",
      "--json",
      "--quiet",
      "--host",
      serverId,
      "--tag",
      `${STATE_TAG},server:${serverId}`,
      ...NOT_STATE.flatMap((p) => ["--exclude", join(dir, p)]),
      dir,
    ],
    deadline,
  )
  const [summary] = jsonLines<{ snapshot_id: string; total_bytes_processed: number; data_added: number }>(
    out,
    "summary",
  )
  if (!summary) throw new Error("restic backup of the state gave no summary")
  return { snapshot: summary.snapshot_id, bytes: summary.total_bytes_processed, added: summary.data_added }
}

/** The state snapshots in the repository (of every server), newest first. */
export async function stateBackups(repo: Repo, deadline: Deadline): Promise<StateBackup[]> {
  const out = await restic(repo, ["snapshots", "--json", "--tag", STATE_TAG], deadline, { aside: true })
  return (JSON.parse(out || "[]") as Snapshot[])
    .map((s) => ({
      snapshot: s.id,
      time: s.time,
      path: s.paths[0] ?? "/",
      server: s.tags?.find((t) => t.startsWith("server:"))?.slice(7) ?? null,
    }))
    .sort((a, b) => b.time.localeCompare(a.time))
}

/**
 * Restores a state snapshot (the newest when `snapshot` is not given; an id or its prefix) into
 * `target`, a data directory that does not exist or is empty: the files as they were, with their modes.
 */
export async function restoreState(
  repo: Repo,
  target: string,
  deadline: Deadline,
  snapshot?: string,
): Promise<StateBackup> {
  const dir = resolve(target)
  if (existsSync(dir) && readdirSync(dir).length)
    throw conflict(`${dir} is not empty: the state is restored into a new data directory`, "target_not_empty")
  if (snapshot !== undefined && !/^[0-9a-f]{8,64}$/.test(snapshot))
    throw invalid(`${snapshot} is no snapshot id`, "invalid_snapshot")
  const all = await stateBackups(repo, deadline)
  const found = snapshot === undefined ? all[0] : all.find((b) => b.snapshot.startsWith(snapshot))
  if (!found) throw notFound(`no state backup ${snapshot ?? ""} in ${repo.name}`.replace("  ", " "), "backup_not_found")
  // restic restores the snapshot's absolute path under its target: laid out beside the target, then moved in.
  mkdirSync(dirname(dir), { recursive: true })
  const staging = mkdtempSync(`${dir}.restoring-`)
  try {
    await restic(repo, ["restore", found.snapshot, "--target", staging], deadline)
    rmSync(dir, { recursive: true, force: true })
    renameDurably(join(staging, found.path), dir)
  } finally {
    rmSync(staging, { recursive: true, force: true })
  }
  return found
}
