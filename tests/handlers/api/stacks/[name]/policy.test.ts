import { afterEach, expect, test } from "bun:test"
import { stackApp, twoServices } from "../../../../support/compose.ts"

let t: Awaited<ReturnType<typeof stackApp>>
afterEach(() => t.close())

test("GET answers the default policy; PUT sets it; bad schedules and values are 400; an unknown stack 404", async () => {
  t = await stackApp()
  await t.call("POST", "/api/stacks", { name: "demo", content: twoServices })
  expect(await (await t.call("GET", "/api/stacks/demo/policy")).json()).toEqual({
    stack: "demo",
    auto_update: "off",
    schedule: null,
    watch: null,
    last_run: null,
    last_verdict: null,
  })
  const put = await t.call("PUT", "/api/stacks/demo/policy", { auto_update: "apply", schedule: "0 4 * * *", watch: 90 })
  expect(put.status).toBe(200)
  expect(await put.json()).toEqual({ stack: "demo", auto_update: "apply", schedule: "0 4 * * *", watch: 90 })
  expect(await (await t.call("GET", "/api/stacks/demo/policy")).json()).toMatchObject({
    auto_update: "apply",
    schedule: "0 4 * * *",
    watch: 90,
  })
  for (const bad of [
    { auto_update: "sometimes" },
    { auto_update: "apply", schedule: "whenever" },
    { auto_update: "notify", watch: -5 },
  ]) {
    const res = await t.call("PUT", "/api/stacks/demo/policy", bad)
    expect(res.status).toBe(400)
  }
  expect((await t.call("GET", "/api/stacks/nope/policy")).status).toBe(404)
  expect((await t.call("PUT", "/api/stacks/nope/policy", { auto_update: "off" })).status).toBe(404)
})
