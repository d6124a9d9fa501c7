// The backups of a stack in a repository: restic's snapshots of this server and stack, grouped by
// their run tag, newest first.
import type { Deadline } from "../engine/spawn.ts"
import { notFound } from "../errors/errors.ts"
import { BIND_TAG, FOLDER_TAG, tags } from "./backup.ts"
import type { Repo } from "./repos.ts"
import { restic } from "./restic.ts"

export interface Backup {
  run: string
  stack: string
  version: number | null
  time: string
  /** The snapshot of each piece: stack.json, volumes/<volume> (a volume's folder) or volumes/<volume>.tar (its tar stream), binds<host path>. */
  pieces: { path: string; snapshot: string }[]
}

interface Snapshot {
  id: string
  time: string
  paths: string[]
  tags?: string[]
}

const tagValue = (s: Snapshot, key: string) => s.tags?.find((t) => t.startsWith(`${key}:`))?.slice(key.length + 1)

/** A snapshot's piece: a bind's by its path, a volume folder's by its tag, the streams' by their file name. */
function pieceOf(s: Snapshot): string {
  if (s.tags?.includes(BIND_TAG)) return `binds${s.paths[0]}`
  const folder = s.tags?.find((t) => t.startsWith(FOLDER_TAG))
  return folder ? `volumes/${folder.slice(FOLDER_TAG.length)}` : s.paths[0]!.replace(/^\//, "")
}

export async function listBackups(repo: Repo, serverId: string, stack: string, deadline: Deadline): Promise<Backup[]> {
  const out = await restic(
    repo,
    ["snapshots", "--json", "--host", serverId, "--tag", tags(serverId, stack).join(",")],
    deadline,
    { aside: true },
  )
  const runs = new Map<string, Backup>()
  for (const s of JSON.parse(out || "[]") as Snapshot[]) {
    const run = tagValue(s, "run")
    if (!run) continue
    const b = runs.get(run) ?? { run, stack, version: Number(tagValue(s, "version")) || null, time: s.time, pieces: [] }
    if (s.time < b.time) b.time = s.time
    b.pieces.push({ path: pieceOf(s), snapshot: s.id })
    runs.set(run, b)
  }
  return [...runs.values()].sort((a, b) => b.time.localeCompare(a.time))
}

/** The backup `run` of the stack this server made (its newest without `run`); not_found `backup_not_found` for none. */
export async function findBackup(
  repo: Repo,
  { serverId, stack, run }: { serverId: string; stack: string; run?: string },
  deadline: Deadline,
): Promise<Backup> {
  const all = await listBackups(repo, serverId, stack, deadline)
  const found = run ? all.find((b) => b.run === run) : all[0]
  if (!found || !found.pieces.some((p) => p.path === "stack.json"))
    throw notFound(
      `no backup ${run ?? ""} of stack ${stack} in repository ${repo.name}`.replace("  ", " "),
      "backup_not_found",
    )
  return found
}

/** The time of each stack's newest backup of this server in the repository, in one restic call. */
export async function newestBackups(repo: Repo, serverId: string, deadline: Deadline): Promise<Map<string, string>> {
  const out = await restic(repo, ["snapshots", "--json", "--host", serverId, "--tag", `server:${serverId}`], deadline)
  const newest = new Map<string, string>()
  for (const s of JSON.parse(out || "[]") as Snapshot[]) {
    const stack = tagValue(s, "stack")
    if (stack && s.paths[0] === "/stack.json" && s.time > (newest.get(stack) ?? "")) newest.set(stack, s.time)
  }
  return newest
}
