import { afterEach, expect, test } from "bun:test"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { SERVICE_LABEL, STACK_LABEL } from "#lib/engine/containers.ts"
import { stackApp, twoServices } from "../../../support/compose.ts"

let t: Awaited<ReturnType<typeof stackApp>>
afterEach(() => t.close())

async function deployed() {
  t = await stackApp()
  expect((await t.call("POST", "/api/stacks", { name: "demo", content: twoServices })).status).toBe(201)
}

test("GET one stack; unknown is 404, bad names 400 (encoded traversal included)", async () => {
  await deployed()
  expect(await (await t.call("GET", "/api/stacks/demo")).json()).toMatchObject({
    name: "demo",
    status: "running",
    current_version: 1,
    capabilities: { actions: ["start", "stop", "restart", "pause", "unpause"], runs_on: "engine" },
  })
  expect((await t.call("GET", "/api/stacks/nope")).status).toBe(404)
  for (const path of ["..%2Fetc", "%2e%2e%2fetc", "Demo", "a%2Fb", "-x", "a%00b"])
    expect((await t.call("GET", `/api/stacks/${path}`)).status).toBe(400)
  // URL parsing folds a whole "%2e%2e" segment away: /api/stacks/.. is /api/, which no route serves.
  expect((await t.call("GET", "/api/stacks/%2e%2e")).status).toBe(404)
})

test("GET a compose project made elsewhere shows it unmanaged", async () => {
  t = await stackApp()
  t.engine.addContainer({ name: "x", labels: { [STACK_LABEL]: "other", [SERVICE_LABEL]: "app" } })
  expect(await (await t.call("GET", "/api/stacks/other")).json()).toMatchObject({
    name: "other",
    managed: false,
    status: "running",
  })
})

test("pause, unpause, restart and start act on the stack's containers by label", async () => {
  await deployed()
  const stranger = t.engine.addContainer({ name: "demo_web_2" })
  let res = await t.call("POST", "/api/stacks/demo/pause")
  expect((await res.json()).status).toBe("paused")
  expect(stranger.state).toBe("running")
  res = await t.call("POST", "/api/stacks/demo/unpause")
  expect((await res.json()).status).toBe("running")
  const [first] = [...t.engine.containers.values()].filter((c) => c.labels[STACK_LABEL] === "demo")
  first!.state = "exited"
  expect((await (await t.call("GET", "/api/stacks/demo")).json()).status).toBe("partly running")
  res = await t.call("POST", "/api/stacks/demo/start")
  expect((await res.json()).status).toBe("running")
  expect(
    t.engine.calls.filter((c) => c.op === "containerAction" && c.args[1] === "start").map((c) => c.args[0]),
  ).toEqual([first!.id])
  const before = t.engine.calls.length
  expect((await t.call("POST", "/api/stacks/demo/restart")).status).toBe(200)
  expect(
    t.engine.calls
      .slice(before)
      .filter((c) => c.op === "containerAction")
      .map((c) => c.args[1]),
  ).toEqual(["restart", "restart"])
  expect((await t.call("POST", "/api/stacks/nope/pause")).status).toBe(404)
})

test("stop stops the stack's running and paused containers by label, keeping them; start brings them back", async () => {
  await deployed()
  const stranger = t.engine.addContainer({ name: "demo_web_2" })
  const [first] = [...t.engine.containers.values()].filter((c) => c.labels[STACK_LABEL] === "demo")
  first!.state = "paused"
  const res = await t.call("POST", "/api/stacks/demo/stop")
  expect(res.status).toBe(200)
  expect((await res.json()).status).toBe("stopped")
  expect(stranger.state).toBe("running")
  expect([...t.engine.containers.values()].filter((c) => c.labels[STACK_LABEL] === "demo").map((c) => c.state)).toEqual(
    ["exited", "exited"],
  )
  expect((await (await t.call("POST", "/api/stacks/demo/start")).json()).status).toBe("running")
  expect((await t.call("POST", "/api/stacks/nope/stop")).status).toBe(404)
})

test("update pulls then brings up, adding no version", async () => {
  await deployed()
  const res = await t.call("POST", "/api/stacks/demo/update", { watch: 0 })
  expect(res.status).toBe(200)
  expect((await res.json()).current_version).toBe(1)
  expect(t.compose.calls.slice(1).map((c) => c.args.join(" "))).toEqual(["pull", "up -d --remove-orphans"])
  t.compose.failures.set("pull", "pull access denied for busybox")
  const failed = await t.call("POST", "/api/stacks/demo/update")
  expect(failed.status).toBe(502)
  expect((await failed.json()).error.message).toContain("pull access denied")
})

test("compose returns the file", async () => {
  await deployed()
  expect(await (await t.call("GET", "/api/stacks/demo/compose")).json()).toEqual({ name: "demo", content: twoServices })
})

test("DELETE takes the stack down and removes its files; volumes only with volumes=true", async () => {
  await deployed()
  await t.call("POST", "/api/stacks", { name: "keep", content: twoServices })
  expect((await t.call("DELETE", "/api/stacks/keep")).status).toBe(200)
  expect(t.compose.calls.at(-1)!.args).toEqual(["down", "--remove-orphans"])
  expect(await (await t.call("DELETE", "/api/stacks/demo?volumes=true")).json()).toEqual({
    removed: "demo",
    volumes_removed: true,
  })
  expect(t.compose.calls.at(-1)!.args).toEqual(["down", "--remove-orphans", "--volumes"])
  expect(existsSync(join(t.dataDir, "stacks/demo"))).toBe(false)
  expect((await t.call("DELETE", "/api/stacks/demo")).status).toBe(404)
  expect((await t.call("DELETE", "/api/stacks/demo?volumes=maybe")).status).toBe(400)
})
