// The stack verbs over the fake engine and compose: each verb's one event once it succeeded (none
// when it fails), the watch through the guard only when asked, and the adoption of containers undone
// when the stack does not come up.
import { afterEach, expect, test } from "bun:test"
import { STACK_LABEL } from "#lib/engine/containers.ts"
import { DomainError } from "#lib/errors/errors.ts"
import { stackApp, twoServices } from "../../support/compose.ts"

let t: Awaited<ReturnType<typeof stackApp>>
afterEach(() => t.close())

const SECRET = "s3cret-value"
const env = [{ key: "TOKEN", value: SECRET, secret: true }]

/** The verbs' events so far (compose's output and the guard's steps left out), as [action, name]. */
const verbEvents = () =>
  t.ctx.events
    .history()
    .filter((e) => e.source === "service" && e.type === "stack" && !e.action.includes("."))
    .map((e) => [e.action, e.name])

/** The error a promise fails with. */
const failure = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (err: unknown) => err as DomainError,
  )

async function deployed() {
  t = await stackApp()
  await t.ctx.verbs.deploy("demo", twoServices, { env })
}

test("each verb publishes one stack event once it succeeded, with no secret in it", async () => {
  await deployed()
  const v = t.ctx.verbs
  await v.apply("demo")
  await v.setEnv("demo", [
    { key: "TOKEN", value: null },
    { key: "MODE", value: "prod" },
  ])
  await v.writeFile("demo", "conf/site.conf", "listen 80\n")
  await v.deleteFile("demo", "conf/site.conf")
  await v.rollback("demo", 1)
  await v.deleteVersion("demo", 2)
  for (const action of ["pause", "unpause", "restart", "start"] as const) await v.action("demo", action)
  await v.up("demo")
  const doc = await v.export("demo")
  await v.import({ ...doc, name: "copy" })
  await v.remove("copy")
  expect(verbEvents()).toEqual([
    ["deploy", "demo"],
    ["apply", "demo"],
    ["set_env", "demo"],
    ["write_file", "demo"],
    ["delete_file", "demo"],
    ["rollback", "demo"],
    ["delete_version", "demo"],
    ["pause", "demo"],
    ["unpause", "demo"],
    ["restart", "demo"],
    ["start", "demo"],
    ["up", "demo"],
    ["export", "demo"],
    ["import", "copy"],
    ["remove", "copy"],
  ])
  const messages = t.ctx.events
    .history()
    .filter((e) => e.type === "stack")
    .map((e) => e.message ?? "")
  expect(messages.filter((m) => m.includes(SECRET))).toEqual([])
  const [deploy, apply, , , , rollback, , pause] = t.ctx.events
    .history()
    .filter((e) => e.type === "stack" && !e.action.includes("."))
  expect([deploy!.message, apply!.message, rollback!.message, pause!.message]).toEqual([
    "created demo as version 1",
    "applied demo as version 2",
    "rolled demo back to version 1",
    "paused 2 containers of demo",
  ])
})

test("a verb that fails publishes no event", async () => {
  await deployed()
  const before = verbEvents()
  expect((await failure(t.ctx.verbs.deleteVersion("demo", 1)))?.code).toBe("current_version")
  expect((await failure(t.ctx.verbs.action("nothing", "start")))?.kind).toBe("not_found")
  t.compose.failures.set("up", "boom")
  expect((await failure(t.ctx.verbs.apply("demo")))?.kind).toBe("upstream")
  expect(verbEvents()).toEqual(before)
})

test("without watch a change is not guarded; with watch it goes through the guard and answers its verdict", async () => {
  await deployed()
  const plain = await t.ctx.verbs.apply("demo")
  expect("update" in plain).toBe(false)
  expect(t.ctx.events.history().some((e) => e.action.startsWith("update."))).toBe(false)
  const watched = await t.ctx.verbs.apply("demo", { watch: 0 })
  expect(watched).toMatchObject({
    name: "demo",
    current_version: 3,
    update: { stack: "demo", action: "apply", verdict: "updated", watch: 0 },
  })
  const rolled = await t.ctx.verbs.rollback("demo", 1, { watch: 0 })
  expect(rolled.update).toMatchObject({ action: "rollback", verdict: "updated" })
  const { stack, created } = await t.ctx.verbs.deploy("demo", twoServices, { watch: 0 })
  expect([created, stack.update?.action, stack.current_version]).toEqual([false, "deploy", 4])
  expect(t.ctx.events.history().filter((e) => e.action === "update.verdict").length).toBe(3)
  expect(verbEvents().slice(-3)).toEqual([
    ["apply", "demo"],
    ["rollback", "demo"],
    ["deploy", "demo"],
  ])
  expect(t.ctx.events.history().find((e) => e.action === "deploy" && e.message?.includes("watched"))?.message).toBe(
    "deployed demo as version 4, watched: updated",
  )
  const updated = await t.ctx.verbs.update("demo", { watch: 0 })
  expect(updated.update).toMatchObject({ action: "update", verdict: "updated" })
  expect(verbEvents().at(-1)).toEqual(["update", "demo"])
})

test("adopting containers: the dry run changes nothing; the adoption replaces them and publishes its event", async () => {
  t = await stackApp()
  t.engine.addImage(["busybox:latest"])
  const old = t.engine.addContainer({ name: "web", image: "busybox:latest" })
  const dry = await t.ctx.verbs.adoptContainers("shop", ["web"], true)
  expect(dry).toMatchObject({ name: "shop", dry_run: true, services: [{ service: "web", container: old.id }] })
  expect([t.ctx.stacks.has("shop"), t.engine.containers.has(old.id), verbEvents()]).toEqual([false, true, []])
  const adopted = await t.ctx.verbs.adoptContainers("shop", ["web"], false)
  expect(adopted).toMatchObject({
    dry_run: false,
    stack: { name: "shop", managed: true, status: "running", current_version: 1 },
  })
  expect([t.ctx.stacks.has("shop"), t.engine.containers.has(old.id), verbEvents()]).toEqual([
    true,
    false,
    [["adopt_containers", "shop"]],
  ])
  expect(t.ctx.events.history().at(-1)?.message).toBe("adopted 1 container as shop: web")
})

test("adopting containers whose stack does not come up: the stack's containers go and the old containers run again", async () => {
  t = await stackApp()
  t.engine.addImage(["busybox:latest"])
  const old = t.engine.addContainer({ name: "web", image: "busybox:latest" })
  const stopped = t.engine.addContainer({ name: "worker", image: "busybox:latest", state: "exited" })
  t.compose.failures.set("up", "no room")
  expect((await failure(t.ctx.verbs.adoptContainers("shop", ["web", "worker"], false)))?.kind).toBe("upstream")
  expect(t.ctx.stacks.has("shop")).toBe(false)
  expect([...t.engine.containers.values()].filter((c) => c.labels[STACK_LABEL] === "shop")).toEqual([])
  expect([t.engine.containers.get(old.id)?.state, t.engine.containers.get(stopped.id)?.state]).toEqual([
    "running",
    "exited",
  ])
  expect(t.engine.calls.filter((c) => c.op === "containerAction").map((c) => c.args[1])).toEqual(["stop", "start"])
  expect(verbEvents()).toEqual([])
})

test("adopting containers whose stack comes up but exits: the stack is removed and the old containers run again", async () => {
  t = await stackApp()
  t.engine.addImage(["busybox:latest"])
  const old = t.engine.addContainer({ name: "web", image: "busybox:latest" })
  const exit = setInterval(() => {
    for (const c of t.engine.containers.values()) if (c.labels[STACK_LABEL] === "shop") c.state = "exited"
  }, 50)
  const err = await failure(t.ctx.verbs.adoptContainers("shop", ["web"], false))
  clearInterval(exit)
  expect([err?.kind, err?.code]).toEqual(["upstream", "adopt_failed"])
  expect(t.ctx.stacks.has("shop")).toBe(false)
  expect(t.compose.calls.map((c) => c.args[0])).toEqual(["up", "down"])
  expect([...t.engine.containers.values()].map((c) => [c.name, c.state])).toEqual([["web", "running"]])
  expect(t.engine.containers.has(old.id)).toBe(true)
  expect(verbEvents()).toEqual([])
})

test("adopting a compose project publishes its event; a dry run does not", async () => {
  t = await stackApp()
  const labels = {
    [STACK_LABEL]: "shop",
    "com.docker.compose.service": "web",
    "com.docker.compose.project.working_dir": "/srv/shop",
    "com.docker.compose.project.config_files": "compose.yaml",
  }
  t.engine.addContainer({ name: "shop_web_1", labels })
  const content = "services:\n  web:\n    image: busybox\n"
  expect(await t.ctx.verbs.adopt("shop", { content, dry_run: true, recreate: true })).toMatchObject({
    dry_run: true,
    stack: null,
  })
  expect(verbEvents()).toEqual([])
  expect(await t.ctx.verbs.adopt("shop", { content, recreate: true })).toMatchObject({
    dry_run: false,
    stack: { name: "shop", managed: true },
  })
  expect(verbEvents()).toEqual([["adopt", "shop"]])
})
