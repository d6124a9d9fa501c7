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

test("a version's compose file is read back to compare it, without the environment", async () => {
  t = await stackApp()
  const second = twoServices.replace("services:", "services:\n  # second")
  await t.call("POST", "/api/stacks", {
    name: "demo",
    content: twoServices,
    env: [{ key: "TOKEN", value: "a-secret", secret: true }],
  })
  await t.call("POST", "/api/stacks", { name: "demo", content: second })
  const res = await t.call("GET", "/api/stacks/demo/versions/1/compose")
  const text = await res.text()
  expect(JSON.parse(text)).toEqual({ version: 1, content: twoServices })
  expect(text).not.toContain("a-secret")
  expect(await (await t.call("GET", "/api/stacks/demo/versions/2/compose")).json()).toEqual({
    version: 2,
    content: second,
  })
  expect((await t.call("GET", "/api/stacks/demo/versions/7/compose")).status).toBe(404)
})
