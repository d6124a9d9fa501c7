import { afterEach, expect, test } from "bun:test"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { userCommand } from "#lib/auth/cli.ts"
import { Passwords } from "#lib/auth/passwords.ts"
import { Sessions } from "#lib/auth/sessions.ts"
import { Tokens } from "#lib/auth/tokens.ts"
import { Users } from "#lib/auth/users.ts"
import { countingHasher } from "../../support/auth.ts"

let dir: string
afterEach(() => rmSync(dir, { recursive: true, force: true }))

async function run(args: string[], stdin = "") {
  const lines: string[] = []
  const code = await userCommand(
    args,
    dir,
    { stdin: async () => stdin, out: (line) => void lines.push(line) },
    new Passwords(countingHasher().hasher),
  )
  return { code, out: lines.join("\n") }
}

test("add, list, role, stacks, passwd and del: a role or stacks changed keep the sessions and tokens, a new password or a removal ends them", async () => {
  dir = mkdtempSync(join(tmpdir(), "hm-cli-"))
  expect(await run(["add", "alice", "--role", "admin"], "a long password\n")).toEqual({
    code: 0,
    out: "user alice added (admin)",
  })
  expect(await run(["add", "bob", "--role", "viewer", "--stacks", "shop,blog"], "bob's password")).toMatchObject({
    code: 0,
  })
  expect(await run(["list"])).toEqual({ code: 0, out: "alice\tadmin\nbob\tviewer\tshop,blog" })
  const auth = join(dir, "auth")
  const sessions = new Sessions(auth, { idle: 3600, max: 3600 }, Date.now)
  const tokens = new Tokens(auth, Date.now)
  const session = await sessions.start({ user: "bob", role: "viewer", source: "local" })
  const { token } = await tokens.create({ name: "t", user: "bob", source: "local", role: "viewer", mcp_confirm: true })
  expect(await run(["role", "bob", "operator"])).toEqual({
    code: 0,
    out: "bob is operator; their sessions and tokens follow",
  })
  expect(await run(["stacks", "bob", "shop"])).toEqual({
    code: 0,
    out: "bob is limited to the stacks shop; their sessions and tokens follow",
  })
  expect(new Users(auth).get("bob")).toMatchObject({ role: "operator", stacks: ["shop"] })
  expect(sessions.get(session)).toBeDefined()
  expect(tokens.use(token)).toBeDefined()
  expect((await run(["stacks", "bob", ""])).out).toBe("bob is limited to no stacks; their sessions and tokens follow")
  expect(new Users(auth).get("bob")!.stacks).toBeUndefined()
  const hash = new Users(auth).get("bob")!.hash
  expect((await run(["passwd", "bob"], "a new password")).code).toBe(0)
  expect(new Users(auth).get("bob")!.hash).not.toBe(hash)
  expect(sessions.get(session)).toBeUndefined()
  expect(tokens.use(token)).toBeUndefined()
  expect((await run(["del", "bob"])).code).toBe(0)
  expect((await run(["list"])).out).toBe("alice\tadmin")
})

test("a weak password, a taken name, an unknown user or role: a message and a non-zero exit; a bad command: the usage, 2", async () => {
  dir = mkdtempSync(join(tmpdir(), "hm-cli-"))
  expect(await run(["add", "alice", "--role", "admin"], "short")).toEqual({
    code: 1,
    out: "a password has at least 8 characters",
  })
  expect((await run(["add", "alice", "--role", "root"], "a long password")).code).toBe(2)
  await run(["add", "alice", "--role", "admin"], "a long password")
  expect(await run(["add", "alice", "--role", "admin"], "a long password")).toEqual({
    code: 1,
    out: 'user "alice" exists',
  })
  expect(await run(["del", "nobody"])).toEqual({ code: 1, out: 'no user "nobody"' })
  expect(await run(["stacks", "nobody", "a"])).toEqual({ code: 1, out: 'no user "nobody"' })
  expect((await run(["stacks", "alice"])).code).toBe(2)
  expect(await run(["add", "a b", "--role", "viewer"], "a long password")).toMatchObject({ code: 1 })
  expect((await run(["frobnicate", "x"])).out).toStartWith("usage:")
  expect((await run([])).code).toBe(2)
})
