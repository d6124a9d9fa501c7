// Records kept one file each (`<folder>/<id>.json`, 0600 in a 0700 folder): API tokens and sessions.
// A record is written once, when it is made, and removed once; nothing rewrites the others, so a
// thousand of them cost what one does, and a removal (sign-out, revocation, `user del` from the command
// line in another process) can never be undone by a write racing it. Writes run off the event loop.
// The folder is read once and then again only when it changed (its mtime), taking in the files that
// came and dropping those that went. What changes often (when each was last used) is kept beside the
// folder in one small file (`Uses`), written at most once a minute.
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, unlinkSync } from "node:fs"
import { join } from "node:path"
import { writeFileAtomicAsync, writeJson } from "../data/datadir.ts"

export class RecordFolder<T> {
  private records = new Map<string, T>()
  private stamp: string | undefined
  /** Counts every change seen, for indexes built over the records. */
  version = 0

  constructor(
    readonly dir: string,
    private idPattern: RegExp,
    /** The whole-file store an earlier version kept (`{id: record}`), taken over once. */
    private legacy?: string,
  ) {}

  private file = (id: string) => join(this.dir, `${id}.json`)

  /** Reads the folder again when it changed since it was last read. */
  refresh(): void {
    let stamp: string
    try {
      const s = statSync(this.dir)
      stamp = `${s.ino}:${s.mtimeMs}`
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err
      if (this.legacy && existsSync(this.legacy)) return this.takeOver(this.legacy)
      if (this.records.size) this.records.clear(), this.version++
      this.stamp = undefined
      return
    }
    if (stamp === this.stamp) return
    this.stamp = stamp
    const present = new Set<string>()
    for (const name of readdirSync(this.dir)) {
      const id = name.endsWith(".json") ? name.slice(0, -5) : ""
      if (!this.idPattern.test(id)) continue
      present.add(id)
      if (this.records.has(id)) continue
      try {
        this.records.set(id, JSON.parse(readFileSync(this.file(id), "utf8")) as T)
      } catch (err) {
        // Gone between the listing and the read: it went, which the next listing says.
        if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err
        present.delete(id)
      }
    }
    for (const id of this.records.keys()) if (!present.has(id)) this.records.delete(id)
    this.version++
  }

  /** The records of the whole-file store of an earlier version, each written as a file of its own, then that file removed. */
  private takeOver(legacy: string): void {
    const all = JSON.parse(readFileSync(legacy, "utf8")) as Record<string, T>
    mkdirSync(this.dir, { recursive: true, mode: 0o700 })
    for (const [id, record] of Object.entries(all)) if (this.idPattern.test(id)) writeJson(this.file(id), record, 0o600)
    unlinkSync(legacy)
    this.refresh()
  }

  get(id: string): T | undefined {
    this.refresh()
    return this.records.get(id)
  }

  all(): T[] {
    this.refresh()
    return [...this.records.values()]
  }

  entries(): [string, T][] {
    this.refresh()
    return [...this.records.entries()]
  }

  /** Writes a new record (off the event loop); it counts once written. */
  async add(id: string, record: T): Promise<void> {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 })
    await writeFileAtomicAsync(this.file(id), `${JSON.stringify(record)}\n`, 0o600)
    this.records.set(id, record)
    this.version++
  }

  /** Removes a record; false when there was none. */
  remove(id: string): boolean {
    if (!this.idPattern.test(id)) return false
    try {
      unlinkSync(this.file(id))
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err
      this.records.delete(id)
      return false
    }
    this.records.delete(id)
    this.version++
    return true
  }
}

/** How often the last-use times are written (milliseconds). */
export const USES_EVERY = 60_000

/**
 * When each record was last used, in memory and in one small file beside the folder, written at most
 * once every `every` ms (off the event loop); the times of records that went are dropped when it is.
 */
export class Uses {
  private times: Map<string, number> | undefined
  private timer: ReturnType<typeof setTimeout> | undefined

  constructor(
    private file: string,
    private alive: (id: string) => boolean,
    private every = USES_EVERY,
  ) {}

  private loaded(): Map<string, number> {
    if (!this.times) {
      let kept: Record<string, number> = {}
      try {
        kept = JSON.parse(readFileSync(this.file, "utf8"))
      } catch {}
      this.times = new Map(Object.entries(kept))
    }
    return this.times
  }

  get(id: string): number | undefined {
    return this.loaded().get(id)
  }

  set(id: string, time: number): void {
    this.loaded().set(id, time)
    this.timer ??= setTimeout(() => void this.flush(), this.every)
    ;(this.timer as { unref?: () => void }).unref?.()
  }

  /** Writes the times now, if any changed. */
  async flush(): Promise<void> {
    if (!this.timer) return
    clearTimeout(this.timer)
    this.timer = undefined
    const times = this.loaded()
    for (const id of times.keys()) if (!this.alive(id)) times.delete(id)
    await writeFileAtomicAsync(this.file, `${JSON.stringify(Object.fromEntries(times))}\n`, 0o600).catch((err) =>
      console.error("auth: last-use times:", err instanceof Error ? err.message : err),
    )
  }
}
