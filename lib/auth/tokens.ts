// API tokens in <data>/auth/tokens.json: `hm_` and 43 random characters, shown once, kept as their
// SHA-256, each with an owner, a name, a role (at most the owner's), optional stacks and expiry, and
// the time it was last used (written at most once a minute).
import { join } from "node:path"
import { HttpError } from "../http/http-error.ts"
import type { Identity, Source } from "./identity.ts"
import { JsonFile } from "./json-file.ts"
import type { Role } from "./roles.ts"
import { randomBytes, randomSecret, sha256 } from "./secrets.ts"

export const TOKEN_PREFIX = "hm_"

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
  last_used?: number
  /** MCP tools that change something answer with their plan first and act on a call with `confirm: true`. */
  mcp_confirm: boolean
}

/** A token as the API lists it: never its hash. */
export type TokenView = Omit<TokenRecord, "hash">

const view = ({ hash: _, ...t }: TokenRecord): TokenView => t

const USED_EVERY = 60_000

export class Tokens {
  private file: JsonFile<Record<string, TokenRecord>>
  private index: { of: Record<string, TokenRecord>; byHash: Map<string, TokenRecord> } | undefined

  constructor(
    dir: string,
    private now: () => number,
  ) {
    this.file = new JsonFile(join(dir, "tokens.json"), () => ({}))
  }

  /** A new token; returns it in the clear (the one time it is seen) with its record. */
  create(t: Omit<TokenRecord, "id" | "hash" | "created">): { token: string; record: TokenView } {
    const token = `${TOKEN_PREFIX}${randomSecret()}`
    const record: TokenRecord = { ...t, id: randomBytes(6).toString("hex"), hash: sha256(token), created: this.now() }
    this.file.update((all) => void (all[record.id] = record))
    return { token, record: view(record) }
  }

  private byHash(hash: string): TokenRecord | undefined {
    const all = this.file.read()
    if (this.index?.of !== all) this.index = { of: all, byHash: new Map(Object.values(all).map((t) => [t.hash, t])) }
    return this.index.byHash.get(hash)
  }

  /**
   * The identity a token stands for, or undefined (unknown, revoked, expired). `firstUse` is true when
   * its last-used time was written now (the first use this minute).
   */
  use(token: string): { identity: Identity; firstUse: boolean } | undefined {
    if (!token.startsWith(TOKEN_PREFIX)) return undefined
    const t = this.byHash(sha256(token))
    const now = this.now()
    if (!t || (t.expires !== undefined && now >= t.expires)) return undefined
    const firstUse = t.last_used === undefined || now - t.last_used >= USED_EVERY
    if (firstUse) this.file.update((all) => void (all[t.id] && (all[t.id].last_used = now)))
    const identity: Identity = {
      user: t.user,
      role: t.role,
      source: t.source,
      token: t.id,
      mcpConfirm: t.mcp_confirm,
      ...(t.stacks && { stacks: t.stacks }),
    }
    return { identity, firstUse }
  }

  get(id: string): TokenView | undefined {
    const all = this.file.read()
    return Object.hasOwn(all, id) ? view(all[id]!) : undefined
  }

  /** Every token, or those of one user (of one source when given: a local and a single sign-on user may share a name). */
  list(user?: string, source?: Source): TokenView[] {
    return Object.values(this.file.read())
      .filter((t) => (user === undefined || t.user === user) && (source === undefined || t.source === source))
      .map(view)
      .sort((a, b) => a.created - b.created)
  }

  revoke(id: string): void {
    this.file.update((all) => {
      if (!Object.hasOwn(all, id)) throw new HttpError(404, "token_not_found", `no token ${id}`)
      delete all[id]
    })
  }

  /** Revokes every token of a user (removed, or their password or role changed). */
  revokeAll(user: string, source = "local"): void {
    if (!Object.values(this.file.read()).some((t) => t.user === user && t.source === source)) return
    this.file.update((all) => {
      for (const [id, t] of Object.entries(all)) if (t.user === user && t.source === source) delete all[id]
    })
  }
}
