// A bind mount's data brought back to its host path from its snapshot (binds<path>, lib/backups/
// backup.ts). restic restores the snapshot into a staging folder beside the path (the same file
// system), and its entries are moved into place, with the owners, modes and times restic gave them:
// the whole path when it did not exist (or, with force, was a file); each top-level entry when it is an empty folder, or, with
// force, one holding data (an entry of the same name is replaced, the others stay).
import { randomBytes } from "node:crypto"
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from "node:fs"
import { dirname, join } from "node:path"
import type { Deadline } from "../engine/spawn.ts"
import type { Repo } from "./repos.ts"
import { restic } from "./restic.ts"

/** Whether something is at the path: a file, or a folder with an entry. */
export function holdsData(path: string): boolean {
  try {
    return statSync(path).isDirectory() ? readdirSync(path).length > 0 : true
  } catch {
    return false
  }
}

/** Restores the snapshot of `path` to it; answers what undoes it (nothing for a path that held data). */
export async function restoreBind(repo: Repo, snapshot: string, path: string, deadline: Deadline): Promise<() => void> {
  const existed = existsSync(path)
  const held = holdsData(path)
  mkdirSync(dirname(path), { recursive: true })
  const staging = join(dirname(path), `.harbormaster-restore-${randomBytes(4).toString("hex")}`)
  mkdirSync(staging, { mode: 0o700 })
  try {
    await restic(repo, ["restore", snapshot, "--target", staging], deadline)
    const restored = join(staging, path)
    if (!existed || !statSync(restored).isDirectory()) {
      rmSync(path, { recursive: true, force: true })
      renameSync(restored, path)
      return existed ? () => {} : () => rmSync(path, { recursive: true, force: true })
    }
    const moved = readdirSync(restored)
    for (const entry of moved) {
      rmSync(join(path, entry), { recursive: true, force: true })
      renameSync(join(restored, entry), join(path, entry))
    }
    return held ? () => {} : () => moved.forEach((entry) => rmSync(join(path, entry), { recursive: true, force: true }))
  } finally {
    rmSync(staging, { recursive: true, force: true })
  }
}
