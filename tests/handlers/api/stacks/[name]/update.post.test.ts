// The guarded update through the handler, with the fake engine and compose: what the service asks of
// compose and the engine, the verdict, the record and the events. The watch itself against real
// containers: tests/integration/update-watch.test.ts.
import { afterEach, expect, test } from "bun:test"
import type { ComposeProject } from "#lib/stacks/compose.ts"
import { STACK_LABEL } from "#lib/engine/containers.ts"
import { stackApp, twoServices } from "../../../../support/compose.ts"

let t: Awaited<ReturnType<typeof stackApp>>
afterEach(() => t.close())

async function deployed() {
  t = await stackApp()
  expect(
    (
      await t.call("POST", "/api/stacks", {
        name: "demo",
        content: twoServices,
        env: [{ key: "TOKEN", value: "s3cret-value", secret: true }],
      })
    ).status,
  ).toBe(201)
}

const mine = () => [...t.engine.containers.values()].filter((c) => c.labels[STACK_LABEL] === "demo")

test("pull, then up (no version added); the verdict is answered, recorded and published", async () => {
  await deployed()
  const res = await t.call("POST", "/api/stacks/demo/update", { watch: 0 })
  expect(res.status).toBe(200)
  const body = await res.json()
  expect(body.current_version).toBe(1)
  expect(body.update).toMatchObject({
    stack: "demo",
    action: "update",
    trigger: "api",
    verdict: "updated",
    reason: null,
    version: 1,
    watch: 0,
  })
  expect(t.compose.calls.slice(1).map((c) => c.args.join(" "))).toEqual(["pull", "up -d --remove-orphans"])
  const history = await (await t.call("GET", "/api/stacks/demo/updates")).json()
  expect(history.history.map((h: any) => h.verdict)).toEqual(["updated"])
  expect(t.ctx.events.history().find((e) => e.action === "update.verdict")).toMatchObject({
    name: "demo",
    attributes: { verdict: "updated" },
  })
  expect(t.ctx.guard.counts.updated).toBe(1)
})

test("without a body the watch is SVC_UPDATE_WATCH's; a failed pull is a 502 and changes nothing", async () => {
  await deployed()
  t.compose.failures.set("pull", "pull access denied for busybox")
  const failed = await t.call("POST", "/api/stacks/demo/update")
  expect(failed.status).toBe(502)
  expect((await failed.json()).error.message).toContain("pull access denied")
  expect(t.compose.calls.at(-1)!.args[0]).toBe("pull")
  expect((await (await t.call("GET", "/api/stacks/demo/updates")).json()).history).toEqual([])
  expect((await t.call("POST", "/api/stacks/nope/update")).status).toBe(404)
  expect((await t.call("POST", "/api/stacks/demo/update", { watch: -1 })).status).toBe(400)
  expect((await t.call("GET", "/api/stacks/nope/updates")).status).toBe(404)
})

test("a container that exits during the watch: the images are re-tagged to the pinned ones, the stack brought up without pulling, and watched again", async () => {
  await deployed()
  t.engine.addImage(["busybox:latest"])
  const run = t.compose.run.bind(t.compose)
  let ups = 0
  t.compose.run = async (project: ComposeProject, args: string[]) => {
    const result = await run(project, args)
    // The first up after the update's pull brings containers that exit at once.
    if (args[0] === "up" && ++ups === 1) for (const c of mine()) c.state = "exited"
    return result
  }
  const res = await t.call("POST", "/api/stacks/demo/update", { watch: 1 })
  const { update } = await res.json()
  expect(update).toMatchObject({ verdict: "rolled_back", decided_early: true, fix: null })
  expect(update.reason).toMatch(/^service (web|db): exited with code 0, 0 restarts$/)
  expect(t.compose.calls.slice(1).map((c) => c.args[0])).toEqual(["pull", "up", "up"])
  // Held under a name of ours during the update, then the tag pointed back at the held image.
  expect(t.engine.calls.filter((c) => c.op === "tagImage").map((c) => c.args.slice(1))).toEqual(
    expect.arrayContaining([
      ["busybox", "hm-pin-demo-db"],
      ["busybox", "hm-pin-demo-web"],
      ["busybox", "latest"],
    ]),
  )
  expect(t.engine.calls.some((c) => c.op === "pullImage")).toBe(false)
  expect(JSON.stringify(update)).not.toContain("s3cret-value")
  expect(
    t.ctx.events
      .history()
      .map((e) => e.action)
      .filter((a) => a.startsWith("update.")),
  ).toEqual(["update.pinned", "update.up", "update.watch", "update.rollback", "update.verdict"])
})

test("a rollback whose images fail too is rollback_failed, naming what to do by hand", async () => {
  await deployed()
  t.engine.addImage(["busybox:latest"])
  const run = t.compose.run.bind(t.compose)
  t.compose.run = async (project: ComposeProject, args: string[]) => {
    const result = await run(project, args)
    if (args[0] === "up") for (const c of mine()) c.state = "exited"
    return result
  }
  const { update } = await (await t.call("POST", "/api/stacks/demo/update", { watch: 1 })).json()
  expect(update.verdict).toBe("rollback_failed")
  expect(update.fix).toContain("the previous images fail too")
  expect(t.ctx.guard.counts.rollback_failed).toBe(1)
})

test("two updates of one stack at once: the second is 409", async () => {
  await deployed()
  let release!: () => void
  t.compose.gate = new Promise((r) => (release = r))
  const first = t.call("POST", "/api/stacks/demo/update", { watch: 0 })
  await Bun.sleep(50)
  const second = await t.call("POST", "/api/stacks/demo/update", { watch: 0 })
  expect(second.status).toBe(409)
  expect((await second.json()).error.code).toBe("update_in_progress")
  release()
  expect((await first).status).toBe(200)
})
