import { afterEach, expect, test } from "bun:test"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { MAX_TOKENS_PER_USER, tokenGrant, Tokens } from "#lib/auth/tokens.ts"

let dir: string
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const ci = (user = "ann", source: "local" | "oidc" = "local") =>
  ({ name: "ci", user, source, role: "operator", mcp_confirm: true }) as const

test("a user's tokens are those of their name and source: a single sign-on user does not see a local namesake's", async () => {
  dir = mkdtempSync(join(tmpdir(), "hm-tokens-"))
  const tokens = new Tokens(dir, () => 1)
  const local = (await tokens.create(ci())).record
  const sso = (await tokens.create({ ...ci("ann", "oidc"), role: "viewer" })).record
  expect(tokens.list("ann", "oidc").map((t) => t.id)).toEqual([sso.id])
  expect(tokens.list("ann", "local").map((t) => t.id)).toEqual([local.id])
  expect(
    tokens
      .list("ann")
      .map((t) => t.id)
      .sort(),
  ).toEqual([local.id, sso.id].sort())
})

test("a user has at most MAX_TOKENS_PER_USER tokens, also when they are asked for at once; each is a small file of its own", async () => {
  dir = mkdtempSync(join(tmpdir(), "hm-tokens-"))
  const tokens = new Tokens(dir, () => 1)
  const made = await Promise.allSettled(Array.from({ length: MAX_TOKENS_PER_USER + 20 }, () => tokens.create(ci())))
  expect(made.filter((m) => m.status === "fulfilled").length).toBe(MAX_TOKENS_PER_USER)
  const refused = made.find((m) => m.status === "rejected") as PromiseRejectedResult
  expect(refused.reason).toMatchObject({ kind: "conflict", code: "too_many_tokens" })
  expect((await tokens.create(ci("bob"))).record.user).toBe("bob")
  const files = readdirSync(join(dir, "tokens"))
  expect(files.length).toBe(MAX_TOKENS_PER_USER + 1)
  for (const f of files) expect(statSync(join(dir, "tokens", f)).size).toBeLessThan(1024)
})

test("a token revoked by another process (the command line) stops working at its next use", async () => {
  dir = mkdtempSync(join(tmpdir(), "hm-tokens-"))
  const tokens = new Tokens(dir, () => 1)
  const { token } = await tokens.create(ci())
  expect(tokens.use(token)).toBeDefined()
  new Tokens(dir, () => 1).revokeAll("ann")
  expect(tokens.use(token)).toBeUndefined()
})

test("an expired token is found by nobody, and is known as expired; a revoked one as gone", async () => {
  dir = mkdtempSync(join(tmpdir(), "hm-tokens-"))
  let now = 1000
  const tokens = new Tokens(dir, () => now)
  const { token, record } = await tokens.create({ ...ci(), expires: 2000 })
  expect(tokens.find(record.id)).toBeDefined()
  now = 2000
  expect(tokens.use(token)).toBeUndefined()
  expect([tokens.find(record.id), tokens.expired(record.id)]).toEqual([undefined, true])
  tokens.revoke(record.id)
  expect(tokens.expired(record.id)).toBe(false)
  expect(() => tokens.revoke(record.id)).toThrow(/no token/)
})

test("the tokens of an earlier version's tokens.json are taken over, one file each, and keep working", async () => {
  dir = mkdtempSync(join(tmpdir(), "hm-tokens-"))
  const old = new Tokens(join(dir, "old"), () => 1)
  const { token, record } = await old.create(ci())
  mkdirSync(join(dir, "auth"))
  const kept = (await Bun.file(join(dir, "old", "tokens", `${record.id}.json`)).json()) as object
  writeFileSync(join(dir, "auth", "tokens.json"), JSON.stringify({ [record.id]: { ...kept, last_used: 5 } }))
  const tokens = new Tokens(join(dir, "auth"), () => 10)
  expect(tokens.use(token)?.record.id).toBe(record.id)
  expect(tokens.get(record.id)).toEqual({ ...record, last_used: 5 })
  expect(existsSync(join(dir, "auth", "tokens.json"))).toBe(false)
  expect(readdirSync(join(dir, "auth", "tokens"))).toEqual([`${record.id}.json`])
})

test("a token's grant is at most its owner's: its role and stacks, as asked or as the owner's", () => {
  const owner = { role: "operator" as const, stacks: ["a", "b"] }
  expect(tokenGrant(owner, {})).toEqual(owner)
  expect(tokenGrant(owner, { role: "viewer", stacks: ["a"] })).toEqual({ role: "viewer", stacks: ["a"] })
  expect(() => tokenGrant(owner, { stacks: ["c"] })).toThrow(/at most its owner's/)
  expect(() => tokenGrant(owner, { stacks: ["a", "c"] })).toThrow(/at most its owner's/)
  expect(() => tokenGrant(owner, { role: "admin" })).toThrow(/at most its owner's/)
  expect(tokenGrant({ role: "admin" }, { stacks: ["z"] })).toEqual({ role: "admin", stacks: ["z"] })
})
