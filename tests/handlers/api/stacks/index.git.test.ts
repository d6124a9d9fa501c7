// POST /api/stacks with `git`: a new stack deployed from a repository on a local path (the fake
// engine and compose runner), a name taken here refused unless attached, and bodies that mix the two
// forms refused before anything runs.
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { git } from "../../../support/git-server.ts"
import { stackApp, twoServices } from "../../../support/compose.ts"

let t: Awaited<ReturnType<typeof stackApp>>
let repo: string
let head: string
afterEach(() => t.close())

beforeAll(async () => {
  repo = mkdtempSync(join(tmpdir(), "hm-git-local-"))
  await git(repo, "init", "-q", "-b", "main")
  await Bun.write(join(repo, "app/compose.yaml"), twoServices)
  await Bun.write(join(repo, "app/conf/site.conf"), "x")
  await git(repo, "add", "-A")
  await git(repo, "commit", "-q", "-m", "first")
  head = await git(repo, "rev-parse", "HEAD")
})
afterAll(() => rmSync(repo, { recursive: true, force: true }))

const deploy = async (body: unknown) => {
  const res = await t.call("POST", "/api/stacks", body)
  return { status: res.status, body: (await res.json()) as any }
}

test("a new stack from a repository: 201, the version recording the commit, the git source in the answer without secrets", async () => {
  t = await stackApp()
  const res = await deploy({
    name: "fromgit",
    git: { url: repo, path: "app/compose.yaml", token: "tok-never-shown" },
    env: [{ key: "PASSWORD", value: "env-never-shown", secret: true }],
  })
  expect(res.status).toBe(201)
  expect(res.body).toMatchObject({
    name: "fromgit",
    current_version: 1,
    files: ["conf/site.conf"],
    git: {
      created: true,
      source: { url: repo, ref: "main", has_token: true, has_ssh_key: false, deployed_commit: head },
    },
  })
  expect(res.body.git.webhook_secret).toMatch(/^[0-9a-f]{48}$/)
  expect(JSON.stringify(res.body)).not.toMatch(/never-shown/)
  const versions = (await (await t.call("GET", "/api/stacks/fromgit/versions")).json()) as { commit?: string }[]
  expect(versions.map((v) => v.commit)).toEqual([head])
  expect(
    ((await (await t.call("GET", "/api/stacks/fromgit/env")).json()) as any[]).map((e) => [e.key, e.value]),
  ).toEqual([["PASSWORD", null]])

  // The name is taken now: another deploy from git is refused unless it attaches.
  const again = await deploy({ name: "fromgit", git: { url: repo, path: "app/compose.yaml" } })
  expect([again.status, again.body.error.code]).toEqual([409, "stack_exists"])
  const attached = await deploy({ name: "fromgit", git: { url: repo, path: "app/compose.yaml" }, attach: true })
  expect(attached.status).toBe(200)
  expect(attached.body.git).toMatchObject({ created: false, sync: { verdict: "unchanged", commit: head } })

  // The stack list marks it with its repository, ref and last verdict, and nothing secret.
  const list = (await (await t.call("GET", "/api/stacks")).json()) as { name: string; git: unknown }[]
  expect(list.find((s) => s.name === "fromgit")?.git).toEqual({ url: repo, ref: "main", last_verdict: "unchanged" })
  expect(JSON.stringify(list)).not.toMatch(/never-shown/)
})

test("a stack that runs here without git is not replaced from a repository unless attached", async () => {
  t = await stackApp()
  expect((await deploy({ name: "plain", content: twoServices })).status).toBe(201)
  expect(((await (await t.call("GET", "/api/stacks")).json()) as { git: unknown }[])[0]!.git).toBeNull()
  const taken = await deploy({ name: "plain", git: { url: repo, path: "app/compose.yaml" } })
  expect([taken.status, taken.body.error.code]).toEqual([409, "stack_exists"])
  expect(taken.body.error.message).toContain("without git")
  const withEnv = await deploy({
    name: "plain",
    git: { url: repo, path: "app/compose.yaml" },
    attach: true,
    env: [{ key: "A", value: "b" }],
  })
  expect([withEnv.status, withEnv.body.error.code]).toEqual([400, "bad_request"])
  expect(withEnv.body.error.message).toContain("PUT /api/stacks/plain/env")
  const attached = await deploy({ name: "plain", git: { url: repo, path: "app/compose.yaml" }, attach: true })
  expect(attached.status).toBe(200)
  expect(attached.body).toMatchObject({
    current_version: 2,
    git: { created: false, sync: { verdict: "applied", commit: head } },
  })
})

test("content and git together, files with git, attach without git, a compose file missing, a key that is no key: 400, nothing written", async () => {
  t = await stackApp()
  for (const body of [
    { name: "x", content: twoServices, git: { url: repo } },
    { name: "x", git: { url: repo }, files: { "a.txt": "a" } },
    { name: "x", content: twoServices, attach: true },
    { name: "x" },
    { name: "x", git: { url: repo, ssh_key: "not a key" } },
  ]) {
    const res = await deploy(body)
    expect([JSON.stringify(body), res.status]).toEqual([JSON.stringify(body), 400])
  }
  const missing = await deploy({ name: "x", git: { url: repo, path: "nope/compose.yaml" } })
  expect([missing.status, missing.body.error.code]).toEqual([400, "git_sync_failed"])
  expect(t.ctx.stacks.has("x")).toBe(false)
})
