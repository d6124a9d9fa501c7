// Signed-in sessions in <data>/auth/sessions.json, by the SHA-256 of their random id (the cookie's
// value): who, with which role, since when and last seen when. A session ends at sign-out, after
// `idle` seconds unused or `max` seconds after it began, and when its user is removed or changed.
import { join } from "node:path"
import type { Identity } from "./identity.ts"
import { JsonFile } from "./json-file.ts"
import { randomSecret, sha256 } from "./secrets.ts"

export interface SessionRecord extends Identity {
  created: number
  seen: number
}

/** How often a session's last-seen time is written (milliseconds). */
const SEEN_EVERY = 60_000

export class Sessions {
  private file: JsonFile<Record<string, SessionRecord>>

  constructor(
    dir: string,
    private limits: { idle: number; max: number },
    private now: () => number,
  ) {
    this.file = new JsonFile(join(dir, "sessions.json"), () => ({}))
  }

  private live(s: SessionRecord, now: number): boolean {
    return now - s.seen < this.limits.idle * 1000 && now - s.created < this.limits.max * 1000
  }

  /** A new session for `identity`; returns its id (the cookie's value). */
  start(identity: Identity): string {
    const id = randomSecret()
    const now = this.now()
    this.file.update((all) => {
      for (const [key, s] of Object.entries(all)) if (!this.live(s, now)) delete all[key]
      all[sha256(id)] = { ...identity, created: now, seen: now }
    })
    return id
  }

  /** The live session with this id, marked as seen (written at most once a minute). */
  get(id: string): SessionRecord | undefined {
    const key = sha256(id)
    const all = this.file.read()
    const s = Object.hasOwn(all, key) ? all[key] : undefined
    const now = this.now()
    if (!s || !this.live(s, now)) return undefined
    if (now - s.seen >= SEEN_EVERY) this.file.update((a) => void (a[key] && (a[key].seen = now)))
    return s
  }

  end(id: string): void {
    const key = sha256(id)
    if (Object.hasOwn(this.file.read(), key)) this.file.update((all) => void delete all[key])
  }

  /** Ends every session of a user (removed, or their password or role changed). */
  endAll(user: string, source = "local"): void {
    const all = this.file.read()
    if (!Object.values(all).some((s) => s.user === user && s.source === source)) return
    this.file.update((a) => {
      for (const [key, s] of Object.entries(a)) if (s.user === user && s.source === source) delete a[key]
    })
  }
}
