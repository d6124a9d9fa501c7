// API tokens under <data>/auth/tokens/, one file each (records.ts): `hm_` and 43 random characters,
// shown once, kept as their SHA-256, each with an owner, a name, a grant (a role and optional stacks,
// never more than the owner's: checked when it is made, and met with the owner's at every use),
// optional expiry, and when it was last used (tokens-used.json, written at most once a minute). A
// user has at most MAX_TOKENS_PER_USER of them.
import { join } from "node:path"
import { conflict, notFound, refused } from "../errors/errors.ts"
import type { Source } from "./identity.ts"
import { RecordFolder, Uses } from "./records.ts"
import type { Role } from "./roles.ts"
import { within, type Grant } from "./scope.ts"
import { randomBytes, randomSecret, sha256 } from "./secrets.ts"

export const TOKEN_PREFIX = "hm_"
export const MAX_TOKENS_PER_USER = 100

export interface TokenRecord {
  id: string
  name: string
  user: string
  source: Source
  role: Role
  stacks?: string[]
  hash: string
  created: number
  expires?: number
  /** When it was last used (kept apart since; a record of an earlier version may carry it). */
  last_used?: number
  /** MCP tools that change something answer with their plan first and act on a call with `confirm: true`. */
  mcp_confirm: boolean
}

/** A token as the API lists it: never its hash. */
export type TokenView = Omit<TokenRecord, "hash">

const USED_EVERY = 60_000
const ID = /^[0-9a-f]{12}$/

/**
 * The grant a new token gets: what was asked (the owner's role and stacks where nothing was), refused
 * (403) when it would allow anything its owner may not.
 */
export function tokenGrant(owner: Grant, asked: { role?: Role; stacks?: readonly string[] }): Grant {
  const stacks = asked.stacks?.length ? [...asked.stacks] : owner.stacks && [...owner.stacks]
  const grant: Grant = { role: asked.role ?? owner.role, ...(stacks && { stacks }) }
  if (!within(grant, owner))
    throw refused(
      `a token's role and stacks are at most its owner's (${owner.role}${owner.stacks ? `, stacks ${owner.stacks.join(", ") || "none"}` : ""})`,
    )
  return grant
}

export class Tokens {
  private folder: RecordFolder<TokenRecord>
  private uses: Uses
  private index: { version: number; byHash: Map<string, TokenRecord> } | undefined
  /** Creations under way per owner, counted against the bound. */
  private making = new Map<string, number>()

  constructor(
    dir: string,
    private now: () => number,
  ) {
    this.folder = new RecordFolder(join(dir, "tokens"), ID, join(dir, "tokens.json"))
    this.uses = new Uses(join(dir, "tokens-used.json"), (id) => this.folder.get(id) !== undefined)
  }

  private view = ({ hash: _, ...t }: TokenRecord): TokenView => {
    const last = this.uses.get(t.id) ?? t.last_used
    return { ...t, ...(last !== undefined && { last_used: last }) }
  }

  /** A new token; returns it in the clear (the one time it is seen) with its record. 409 past the bound. */
  async create(
    t: Omit<TokenRecord, "id" | "hash" | "created" | "last_used">,
  ): Promise<{ token: string; record: TokenView }> {
    const owner = `${t.source}:${t.user}`
    const under = this.making.get(owner) ?? 0
    if (this.list(t.user, t.source).length + under >= MAX_TOKENS_PER_USER)
      throw conflict(
        `${t.user} has ${MAX_TOKENS_PER_USER} API tokens, the most a user may have: revoke one first`,
        "too_many_tokens",
      )
    const token = `${TOKEN_PREFIX}${randomSecret()}`
    const record: TokenRecord = { ...t, id: randomBytes(6).toString("hex"), hash: sha256(token), created: this.now() }
    this.making.set(owner, under + 1)
    try {
      await this.folder.add(record.id, record)
    } finally {
      const left = (this.making.get(owner) ?? 1) - 1
      if (left) this.making.set(owner, left)
      else this.making.delete(owner)
    }
    return { token, record: this.view(record) }
  }

  private byHash(hash: string): TokenRecord | undefined {
    this.folder.refresh()
    if (this.index?.version !== this.folder.version)
      this.index = {
        version: this.folder.version,
        byHash: new Map(this.folder.all().map((t) => [t.hash, t])),
      }
    return this.index.byHash.get(hash)
  }

  private live = (t: TokenRecord | undefined, now = this.now()) =>
    t && (t.expires === undefined || now < t.expires) ? t : undefined

  /**
   * The record of a token in the clear, or undefined (unknown, revoked, expired). `firstUse` is true
   * when its last-used time was marked now (the first use this minute).
   */
  use(token: string): { record: TokenRecord; firstUse: boolean } | undefined {
    if (!token.startsWith(TOKEN_PREFIX)) return undefined
    const now = this.now()
    const t = this.live(this.byHash(sha256(token)), now)
    if (!t) return undefined
    const last = this.uses.get(t.id) ?? t.last_used
    const firstUse = last === undefined || now - last >= USED_EVERY
    if (firstUse) this.uses.set(t.id, now)
    return { record: t, firstUse }
  }

  /** The live record with this id (not marked as used): what an open stream is checked against. */
  find(id: string): TokenRecord | undefined {
    return this.live(this.folder.get(id))
  }

  /** Whether the token `id` is kept but expired. */
  expired(id: string): boolean {
    const t = this.folder.get(id)
    return !!t && !this.live(t)
  }

  get(id: string): TokenView | undefined {
    const t = ID.test(id) ? this.folder.get(id) : undefined
    return t && this.view(t)
  }

  /** Every token, or those of one user (of one source when given: a local and a single sign-on user may share a name). */
  list(user?: string, source?: Source): TokenView[] {
    return this.folder
      .all()
      .filter((t) => (user === undefined || t.user === user) && (source === undefined || t.source === source))
      .map(this.view)
      .sort((a, b) => a.created - b.created || a.id.localeCompare(b.id))
  }

  revoke(id: string): void {
    if (!this.folder.remove(id)) throw notFound(`no token ${id}`, "token_not_found")
  }

  /** Revokes every token of a user (removed, or their password changed). */
  revokeAll(user: string, source: Source = "local"): void {
    for (const t of this.folder.all()) if (t.user === user && t.source === source) this.folder.remove(t.id)
  }

  /** Writes the last-use times now (at a stop). */
  flush(): Promise<void> {
    return this.uses.flush()
  }
}
