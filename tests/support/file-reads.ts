// Counts what the code under test asks of the file system below some folders: every read, listing,
// stat, existence check and open through node:fs and node:fs/promises (the named imports of the
// code see the spies), by path.
import { spyOn } from "bun:test"
import * as fs from "node:fs"
import * as fsp from "node:fs/promises"

const SYNC = ["readFileSync", "readdirSync", "existsSync", "statSync", "lstatSync", "openSync"] as const
const ASYNC = ["readFile", "readdir", "stat", "lstat", "open"] as const

export interface FileReads {
  /** The paths asked about below the folders since the watch began (or since `reset`), in order. */
  paths(): string[]
  reset(): void
  stop(): void
}

export function watchFileReads(folders: string[]): FileReads {
  let seen: string[] = []
  const below = (p: unknown) => {
    const path = p instanceof URL ? p.pathname : typeof p === "string" ? p : undefined
    if (path && folders.some((f) => path === f || path.startsWith(`${f}/`))) seen.push(path)
  }
  const spies = [
    ...SYNC.map((name) => {
      const real = fs[name] as (...args: unknown[]) => unknown
      return spyOn(fs, name).mockImplementation(((...args: unknown[]) => {
        below(args[0])
        return real(...args)
      }) as never)
    }),
    ...ASYNC.map((name) => {
      const real = fsp[name] as (...args: unknown[]) => unknown
      return spyOn(fsp, name).mockImplementation(((...args: unknown[]) => {
        below(args[0])
        return real(...args)
      }) as never)
    }),
  ]
  return {
    paths: () => [...seen],
    reset: () => void (seen = []),
    stop: () => {
      for (const s of spies) s.mockRestore()
    },
  }
}
