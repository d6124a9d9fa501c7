// Version and source revision. The compiled binary gets BUILD_SHA from `bun build --define`;
// a source checkout reads it from .git without spawning anything.
import { readFileSync } from "node:fs"
import { join } from "node:path"
import pkg from "../package.json"

declare const BUILD_SHA: string | undefined

export function gitSha(root: string): string {
  try {
    const git = join(root, ".git")
    const head = readFileSync(join(git, "HEAD"), "utf8").trim()
    if (!head.startsWith("ref: ")) return head
    const ref = head.slice(5)
    try {
      return readFileSync(join(git, ref), "utf8").trim()
    } catch {
      const line = readFileSync(join(git, "packed-refs"), "utf8").split("\n").find((l) => l.endsWith(` ${ref}`))
      return line?.split(" ")[0] ?? "unknown"
    }
  } catch {
    return "unknown"
  }
}

export const version: string = pkg.version
export const sha: string = typeof BUILD_SHA === "string" ? BUILD_SHA : gitSha(join(import.meta.dir, ".."))
