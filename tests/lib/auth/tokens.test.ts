import { afterEach, expect, test } from "bun:test"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Tokens } from "#lib/auth/tokens.ts"

let dir: string
afterEach(() => rmSync(dir, { recursive: true, force: true }))

test("a user's tokens are those of their name and source: a single sign-on user does not see a local namesake's", () => {
  dir = mkdtempSync(join(tmpdir(), "hm-tokens-"))
  const tokens = new Tokens(dir, () => 1)
  const local = tokens.create({ name: "ci", user: "ann", source: "local", role: "operator", mcp_confirm: true }).record
  const sso = tokens.create({ name: "laptop", user: "ann", source: "oidc", role: "viewer", mcp_confirm: true }).record
  expect(tokens.list("ann", "oidc").map((t) => t.id)).toEqual([sso.id])
  expect(tokens.list("ann", "local").map((t) => t.id)).toEqual([local.id])
  expect(
    tokens
      .list("ann")
      .map((t) => t.id)
      .sort(),
  ).toEqual([local.id, sso.id].sort())
})
