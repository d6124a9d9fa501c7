// The context makes the start path's parts at once and every other part by its first read, once;
// the background jobs wait for the first thing they work on before they make their part.
import { afterEach, expect, test } from "bun:test"
import { mkdirSync } from "node:fs"
import { background } from "#lib/service/background.ts"
import { made } from "#lib/service/context.ts"
import { stackDirs } from "#lib/stacks/name.ts"
import { testApp, type TestApp } from "../../support/app.ts"

let t: TestApp
afterEach(async () => {
  await t.ctx.jobs.stop(100)
  t.close()
})

test("a part is made by its first read, once, and a part given or assigned is the one used", async () => {
  const given = { resume: async () => {} } as unknown as TestApp["ctx"]["scans"]
  t = await testApp({ scans: given })
  expect(made(t.ctx, "engine")).toBe(true)
  expect(made(t.ctx, "stacks")).toBe(false)
  const stacks = t.ctx.stacks
  expect(t.ctx.stacks).toBe(stacks)
  expect(made(t.ctx, "stacks")).toBe(true)
  expect(t.ctx.scans).toBe(given)
  const other = { ...stacks } as typeof stacks
  t.ctx.stacks = other
  expect(t.ctx.stacks).toBe(other)
})

test("the jobs whose work needs stacks wait for the first stack's records before they make their parts", async () => {
  t = await testApp()
  const waiting = ["live mounts", "update policies", "git schedules"]
  t.ctx.jobs.start(
    background.filter((j) => waiting.includes(j.name)),
    t.ctx,
  )
  await Bun.sleep(50)
  expect(t.ctx.jobs.states().map((j) => j.state)).toEqual(["running", "running", "running"])
  expect(["liveMounts", "policies", "git", "stacks"].map((k) => made(t.ctx, k as "stacks"))).toEqual([
    false,
    false,
    false,
    false,
  ])
  mkdirSync(stackDirs(t.dataDir).records, { recursive: true })
  // The jobs look again every second.
  for (let i = 0; i < 50 && !made(t.ctx, "git"); i++) await Bun.sleep(100)
  expect(["liveMounts", "policies", "git"].map((k) => made(t.ctx, k as "stacks"))).toEqual([true, true, true])
})

test("with nothing to work on, the jobs make no part: no queued scan, no notification target, no membership, no update interval", async () => {
  t = await testApp()
  const idle = ["scan queue", "image update checks", "notifier", "cluster link"]
  t.ctx.jobs.start(
    background.filter((j) => idle.includes(j.name)),
    t.ctx,
  )
  await Bun.sleep(50)
  expect(t.ctx.jobs.states().map((j) => [j.name, j.state])).toEqual([
    ["scan queue", "done"],
    ["image update checks", "done"],
    ["notifier", "done"],
    ["cluster link", "running"],
  ])
  expect(["scans", "imageUpdates", "notifier", "cluster"].map((k) => made(t.ctx, k as "stacks"))).toEqual([
    false,
    false,
    false,
    false,
  ])
})

test("the update checks begin after their first interval, then run every interval", async () => {
  t = await testApp({}, { SVC_UPDATE_INTERVAL: "1" })
  t.ctx.jobs.start(
    background.filter((j) => j.name === "image update checks"),
    t.ctx,
  )
  await Bun.sleep(50)
  expect(made(t.ctx, "imageUpdates")).toBe(false)
  for (let i = 0; i < 60 && t.engine.calls.filter((c) => c.op === "listImages").length < 2; i++) await Bun.sleep(100)
  expect(t.engine.calls.filter((c) => c.op === "listImages").length).toBeGreaterThanOrEqual(2)
})
