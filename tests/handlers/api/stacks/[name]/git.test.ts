import { afterAll, beforeAll, expect, test } from "bun:test"
import { testApp, type TestApp } from "../../../../support/app.ts"

let t: TestApp
beforeAll(async () => {
  t = await testApp()
})
afterAll(() => t.close())

const json = async (res: Response) => ({ status: res.status, body: (await res.json()) as any })

test("a stack without a git source: status and sync are 404 no_git_source, detaching too", async () => {
  for (const [method, path] of [["GET", "/api/stacks/plain/git"], ["POST", "/api/stacks/plain/git/sync"], ["DELETE", "/api/stacks/plain/git"]] as const) {
    const res = await json(await t.call(method, path, method === "POST" ? {} : undefined))
    expect([path, res.status, res.body.error.code]).toEqual([path, 404, "no_git_source"])
  }
})

test("the webhook answers a foreign Host and Origin with its own 401, not the browser guard's 403, and says so on the bus", async () => {
  const res = await json(await t.call("POST", "/api/stacks/plain/git/webhook", '{"ref":"refs/heads/main"}', { host: "harbor.example.com", origin: "https://git.example.com", "x-hub-signature-256": "sha256=00" }))
  expect(res).toEqual({ status: 401, body: { error: { code: "bad_signature", message: expect.any(String) } } })
  expect(t.ctx.events.history().filter((e) => e.type === "git").map((e) => e.action)).toEqual(["webhook_refused"])
  // Any other route from that Host is still refused by the guard.
  expect((await t.call("POST", "/api/stacks/plain/git/sync", {}, { host: "harbor.example.com" })).status).toBe(403)
})

test("a repository URL with a credential in it, or of a protocol not allowed, is 400 before anything runs", async () => {
  for (const url of ["https://user:pw@git.example.com/a.git", "ext::sh -c id", "git://git.example.com/a.git"]) {
    const res = await json(await t.call("PUT", "/api/stacks/fromgit/git", { url }))
    expect([url, res.status, res.body.error.code]).toEqual([url, 400, "invalid_git_url"])
  }
  expect((await json(await t.call("PUT", "/api/stacks/fromgit/git", { url: "https://git.example.com/a.git", path: "../compose.yaml" }))).body.error.code).toBe("invalid_git_path")
  expect(t.ctx.stacks.has("fromgit")).toBe(false)
})

test("a schedule that is neither an interval nor a cron expression is 400", async () => {
  const res = await json(await t.call("PUT", "/api/stacks/fromgit/git", { url: "https://git.example.com/a.git", schedule: "every tuesday" }))
  expect([res.status, res.body.error.code]).toEqual([400, "invalid_policy"])
})
