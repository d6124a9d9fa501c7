// Version and source revision. The compiled binary gets BUILD_SHA from `bun build --define`;
// a source checkout reads it from .git without spawning anything.
import { existsSync, readFileSync, statSync } from "node:fs"
import { join, resolve } from "node:path"
import pkg from "../../package.json"

declare const BUILD_SHA: string | undefined

export function gitSha(root: string): string {
  try {
    // In a linked worktree .git is a file naming the real git directory; refs live in its common dir.
    let git = join(root, ".git")
    if (statSync(git).isFile())
      git = resolve(
        root,
        readFileSync(git, "utf8")
          .replace(/^gitdir:\s*/, "")
          .trim(),
      )
    const common = existsSync(join(git, "commondir"))
      ? resolve(git, readFileSync(join(git, "commondir"), "utf8").trim())
      : git
    const head = readFileSync(join(git, "HEAD"), "utf8").trim()
    if (!head.startsWith("ref: ")) return head
    const ref = head.slice(5)
    for (const dir of [git, common]) if (existsSync(join(dir, ref))) return readFileSync(join(dir, ref), "utf8").trim()
    const line = readFileSync(join(common, "packed-refs"), "utf8")
      .split("\n")
      .find((l) => l.endsWith(` ${ref}`))
    return line?.split(" ")[0] ?? "unknown"
  } catch {
    return "unknown"
  }
}

export const version: string = pkg.version
export const sha: string = typeof BUILD_SHA === "string" ? BUILD_SHA : gitSha(join(import.meta.dir, "../.."))
