// Signed-in sessions under <data>/auth/sessions/, one file each (records.ts), named by the SHA-256 of
// their random id (the cookie's value): who, with which role, since when; when each was last seen is
// kept apart (sessions-seen.json, written at most once a minute), and the User-Agent and address it
// was begun from, which its owner sees in their list. A session ends at sign-out, when its owner or an
// admin ends it from the list, after `idle` seconds unused or `max` seconds after it began, when its
// user is removed or their password or factors change; a user keeps at most MAX_SESSIONS_PER_USER,
// the oldest ending first.
import { join } from "node:path"
import { deviceOf } from "./device.ts"
import type { Identity, Source } from "./identity.ts"
import { RecordFolder, Uses } from "./records.ts"
import { randomSecret, sha256 } from "./secrets.ts"

export interface SessionRecord extends Identity {
  created: number
  /** When it was last seen (kept apart since; a record of an earlier version carries it). */
  seen: number
  /** The User-Agent it was begun with (cut at 300 characters) and the caller's address then. */
  agent?: string
  address?: string
}

/** Where a session was begun from. */
export interface Origin {
  agent?: string
  address?: string
}

/** A session as its list shows it: a short id (the start of its key), never the key or the id. */
export interface SessionView {
  id: string
  user: string
  source: Identity["source"]
  device: string
  agent?: string
  address?: string
  created: number
  last_used: number
  current: boolean
}

/** The id a session is listed and ended by: the first 16 hex digits of its key. */
export const listedId = (key: string) => key.slice(0, 16)

export const sessionView = (s: SessionRecord & { key: string }, currentKey: string | undefined): SessionView => ({
  id: listedId(s.key),
  user: s.user,
  source: s.source,
  device: deviceOf(s.agent),
  ...(s.agent && { agent: s.agent }),
  ...(s.address && { address: s.address }),
  created: s.created,
  last_used: s.seen,
  current: s.key === currentKey,
})

export const MAX_SESSIONS_PER_USER = 50

/** How often a session's last-seen time is marked (milliseconds). */
const SEEN_EVERY = 60_000
const KEY = /^[0-9a-f]{64}$/

export class Sessions {
  private folder: RecordFolder<SessionRecord>
  private seen: Uses

  constructor(
    dir: string,
    private limits: { idle: number; max: number },
    private now: () => number,
  ) {
    this.folder = new RecordFolder(join(dir, "sessions"), KEY, join(dir, "sessions.json"))
    this.seen = new Uses(join(dir, "sessions-seen.json"), (key) => this.folder.get(key) !== undefined)
  }

  /** The key a session is kept under: the SHA-256 of its id. */
  static key = (id: string) => sha256(id)

  private lastSeen = (key: string, s: SessionRecord) => Math.max(this.seen.get(key) ?? 0, s.seen)

  private live(key: string, s: SessionRecord, now: number): boolean {
    return now - this.lastSeen(key, s) < this.limits.idle * 1000 && now - s.created < this.limits.max * 1000
  }

  /** A new session for `identity`, begun from `origin`; returns its id (the cookie's value). Dead sessions go, and the user's oldest past the bound. */
  async start(identity: Identity, origin: Origin = {}): Promise<string> {
    const id = randomSecret()
    const now = this.now()
    const mine: [string, SessionRecord][] = []
    for (const [key, s] of this.folder.entries()) {
      if (!this.live(key, s, now)) this.folder.remove(key)
      else if (s.user === identity.user && s.source === identity.source) mine.push([key, s])
    }
    mine.sort(([, a], [, b]) => a.created - b.created)
    for (const [key] of mine.slice(0, Math.max(0, mine.length - MAX_SESSIONS_PER_USER + 1))) this.folder.remove(key)
    const from = {
      ...(origin.agent && { agent: origin.agent.slice(0, 300) }),
      ...(origin.address && { address: origin.address }),
    }
    await this.folder.add(Sessions.key(id), { ...identity, ...from, created: now, seen: now })
    return id
  }

  /** The live session kept under `key`, not marked as seen: what an open stream is checked against. */
  find(key: string): SessionRecord | undefined {
    const s = this.folder.get(key)
    return s && this.live(key, s, this.now()) ? s : undefined
  }

  /** Whether a session is still kept under `key` but no longer live (unused too long, or too old). */
  expired(key: string): boolean {
    return this.folder.get(key) !== undefined && !this.find(key)
  }

  /** The live session with this id and its key, marked as seen (at most once a minute). */
  get(id: string): (SessionRecord & { key: string }) | undefined {
    const key = Sessions.key(id)
    const s = this.find(key)
    if (!s) return undefined
    const now = this.now()
    if (now - this.lastSeen(key, s) >= SEEN_EVERY) this.seen.set(key, now)
    return { ...s, key }
  }

  /** Ends the session kept under `key`. */
  endKey(key: string): void {
    this.folder.remove(key)
  }

  end(id: string): void {
    this.endKey(Sessions.key(id))
  }

  /** The live sessions (a user's, when named), oldest first, with their keys and when each was last seen. */
  list(user?: { user: string; source: Source }): (SessionRecord & { key: string })[] {
    const now = this.now()
    return this.folder
      .entries()
      .filter(([key, s]) => (!user || (s.user === user.user && s.source === user.source)) && this.live(key, s, now))
      .map(([key, s]) => ({ ...s, key, seen: this.lastSeen(key, s) }))
      .sort((a, b) => a.created - b.created)
  }

  /** Ends every session of a user (removed, their password changed) but the one kept under `keep`. */
  endAll(user: string, source: Source = "local", keep?: string): void {
    for (const [key, s] of this.folder.entries())
      if (s.user === user && s.source === source && key !== keep) this.folder.remove(key)
  }

  /** Writes the last-seen times now (at a stop). */
  flush(): Promise<void> {
    return this.seen.flush()
  }
}
