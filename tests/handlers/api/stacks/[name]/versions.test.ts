import { afterEach, expect, test } from "bun:test"
import { stackApp, twoServices } from "../../../../support/compose.ts"

let t: Awaited<ReturnType<typeof stackApp>>
afterEach(() => t.close())

test("versions list what changed without values; rollback moves to a version; the current one cannot be deleted", async () => {
  t = await stackApp()
  await t.call("POST", "/api/stacks", {
    name: "demo",
    content: twoServices,
    env: [{ key: "TOKEN", value: "first-secret", secret: true }],
  })
  await t.call("PUT", "/api/stacks/demo/env", [{ key: "TOKEN", value: "second-secret" }])
  await t.call("POST", "/api/stacks/demo/apply")

  const res = await t.call("GET", "/api/stacks/demo/versions")
  const text = await res.text()
  expect(text).not.toContain("first-secret")
  expect(text).not.toContain("second-secret")
  const versions = JSON.parse(text)
  expect(versions.map((v: any) => [v.version, v.action, v.current])).toEqual([
    [1, "deploy", false],
    [2, "apply", true],
  ])
  expect(versions[1].changes).toEqual({
    from: 1,
    compose: false,
    env: { added: [], removed: [], changed: ["TOKEN"] },
    files: { added: [], removed: [], changed: [] },
  })

  const back = await t.call("POST", "/api/stacks/demo/rollback/1")
  expect(await back.json()).toMatchObject({ current_version: 1, env_pending: false })
  expect(t.compose.calls.at(-1)!.env).toEqual({ TOKEN: "first-secret" })
  expect((await (await t.call("GET", "/api/stacks/demo/versions")).json()).length).toBe(2)

  expect((await t.call("POST", "/api/stacks/demo/rollback/9")).status).toBe(404)
  expect((await t.call("POST", "/api/stacks/demo/rollback/abc")).status).toBe(400)
  expect((await t.call("DELETE", "/api/stacks/demo/versions/1")).status).toBe(409)
  expect((await t.call("DELETE", "/api/stacks/demo/versions/9")).status).toBe(404)
  expect(await (await t.call("DELETE", "/api/stacks/demo/versions/2")).json()).toEqual({ deleted: 2 })
  expect((await (await t.call("GET", "/api/stacks/demo/versions")).json()).map((v: any) => v.version)).toEqual([1])
})
