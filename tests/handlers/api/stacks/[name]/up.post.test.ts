import { afterEach, expect, test } from "bun:test"
import { stackApp, twoServices, type FakeCompose } from "../../../../support/compose.ts"
import type { TestApp } from "../../../../support/app.ts"
import { bearer, withToken } from "../../../../support/token.ts"

let t: TestApp & { compose: FakeCompose }
afterEach(() => t.close())

test("brings an imported stack up without adding a version", async () => {
  t = await stackApp()
  withToken(t.dataDir)
  await t.ctx.stacks.importStack({ name: "web", compose: twoServices, env: [], versions: [], current_version: null })
  const res = await t.call("POST", "/api/stacks/web/up", undefined, bearer)
  expect(res.status).toBe(200)
  expect(await res.json()).toMatchObject({ name: "web" })
  expect(t.compose.calls.map((c) => c.args[0])).toEqual(["up"])
  expect(t.engine.containers.size).toBe(2)
  expect((await t.ctx.stacks.read("web")).versions).toEqual([])
})

test.each([
  ["no token", {}, "web", 401],
  ["an unknown stack", bearer, "nope", 404],
])("%s is refused and nothing runs", async (_what, headers, name, status) => {
  t = await stackApp()
  withToken(t.dataDir)
  await t.ctx.stacks.importStack({ name: "web", compose: twoServices, env: [], versions: [], current_version: null })
  expect((await t.call("POST", `/api/stacks/${name}/up`, undefined, headers)).status).toBe(status)
  expect(t.compose.calls).toEqual([])
})
