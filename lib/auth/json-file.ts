// One JSON file under <data>/auth/, readable by the service's user only (0600, in a 0700 folder),
// replaced whole on every write. Reads are cached and made again when the file changed on disk, so a
// change made from the command line (`user del`) is seen by the running service at its next request.
// A file holding secrets is sealed with the service's secret key (lib/data/sealed.ts).
import { mkdirSync, readFileSync, statSync } from "node:fs"
import { dirname } from "node:path"
import { writeJson, writeSealedJson } from "../data/datadir.ts"
import { unseal } from "../data/sealed.ts"

export class JsonFile<T> {
  private cached: { key: string; value: T } | undefined

  constructor(
    readonly path: string,
    private empty: () => T,
    private sealed = false,
  ) {}

  private stamp(): string | undefined {
    try {
      const s = statSync(this.path)
      return `${s.ino}:${s.mtimeMs}:${s.size}`
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined
      throw err
    }
  }

  read(): T {
    const key = this.stamp()
    if (key === undefined) return this.empty()
    if (this.cached?.key === key) return this.cached.value
    const value = JSON.parse(unseal(readFileSync(this.path, "utf8"), this.path)) as T
    this.cached = { key, value }
    return value
  }

  write(value: T): void {
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 })
    if (this.sealed) writeSealedJson(this.path, value)
    else writeJson(this.path, value, 0o600)
    this.cached = { key: this.stamp()!, value }
  }

  /** Reads, changes and writes back. */
  update<R>(change: (value: T) => R): R {
    const value = structuredClone(this.read())
    const result = change(value)
    this.write(value)
    return result
  }
}
