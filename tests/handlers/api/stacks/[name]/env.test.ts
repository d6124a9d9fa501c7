import { afterEach, expect, test } from "bun:test"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { stackApp, twoServices } from "../../../../support/compose.ts"

let t: Awaited<ReturnType<typeof stackApp>>
afterEach(() => t.close())

const SECRET = "pa55-secret-1"

async function deployed() {
  t = await stackApp()
  await t.call("POST", "/api/stacks", {
    name: "demo",
    content: twoServices,
    env: [
      { key: "TOKEN", value: SECRET, secret: true },
      { key: "MODE", value: "fast", secret: false },
    ],
  })
}

test("GET env hides secret values", async () => {
  await deployed()
  expect(await (await t.call("GET", "/api/stacks/demo/env")).json()).toEqual([
    { key: "TOKEN", value: null, secret: true },
    { key: "MODE", value: "fast", secret: false },
  ])
})

test("PUT env replaces without deploying, null keeps the stored value, answers env_pending", async () => {
  await deployed()
  const calls = t.compose.calls.length
  let res = await t.call("PUT", "/api/stacks/demo/env", [
    { key: "TOKEN", value: null },
    { key: "MODE", value: "slow" },
  ])
  expect(res.status).toBe(200)
  const text = await res.text()
  expect(text).not.toContain(SECRET)
  expect(JSON.parse(text)).toEqual({
    env_pending: true,
    env: [
      { key: "TOKEN", value: null, secret: true },
      { key: "MODE", value: "slow", secret: false },
    ],
  })
  expect(t.compose.calls.length).toBe(calls)
  expect((await (await t.call("GET", "/api/stacks/demo")).json()).env_pending).toBe(true)
  res = await t.call("PUT", "/api/stacks/demo/env", [{ key: "NEW", value: null }])
  expect(res.status).toBe(400)
  expect((await t.call("PUT", "/api/stacks/demo/env", [{ key: "1BAD", value: "x" }])).status).toBe(400)
  expect((await t.call("PUT", "/api/stacks/nope/env", [])).status).toBe(404)
})

test("apply redeploys with the stored environment, adds a version and clears env_pending", async () => {
  await deployed()
  await t.call("PUT", "/api/stacks/demo/env", [{ key: "TOKEN", value: "pa55-secret-2" }])
  const res = await t.call("POST", "/api/stacks/demo/apply")
  expect(await res.json()).toMatchObject({ current_version: 2, env_pending: false })
  expect(t.compose.calls.at(-1)!.env).toEqual({ TOKEN: "pa55-secret-2" })
  const web = [...t.engine.containers.values()].find((c) => c.name === "demo_web_1")!
  expect(web.env).toContain("TOKEN=pa55-secret-2")
})

test("env export needs the cluster bearer token and then shows secrets", async () => {
  await deployed()
  expect((await t.call("GET", "/api/stacks/demo/env/export")).status).toBe(401)
  writeFileSync(join(t.dataDir, "cluster.json"), JSON.stringify({ token: "cluster-token-123" }))
  expect(
    (await t.call("GET", "/api/stacks/demo/env/export", undefined, { authorization: "Bearer wrong" })).status,
  ).toBe(401)
  const res = await t.call("GET", "/api/stacks/demo/env/export", undefined, {
    authorization: "Bearer cluster-token-123",
  })
  expect(await res.json()).toEqual([
    { key: "TOKEN", value: SECRET, secret: true },
    { key: "MODE", value: "fast", secret: false },
  ])
})
