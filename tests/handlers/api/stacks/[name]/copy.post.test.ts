import { afterEach, expect, test } from "bun:test"
import { engineError } from "#lib/engine/client.ts"
import { stackApp, type FakeCompose } from "../../../../support/compose.ts"
import { serveApp, type TestApp } from "../../../../support/app.ts"
import { withToken } from "../../../../support/token.ts"

let t: TestApp & { compose: FakeCompose }
afterEach(() => t.close())

const COMPOSE = `services:
  app:
    image: busybox:latest
    volumes: [data:/data, logs:/logs]
volumes:
  data:
  logs:
  never:
`

async function app(compose = COMPOSE) {
  t = await stackApp()
  t.engine.addImage(["busybox:latest"])
  t.engine.addImage(["alpine:3"])
  await t.ctx.stacks.deploy("web", { compose, env: [{ key: "PASSWORD", value: "hunter2", secret: true }] })
  await t.engine.createVolume("web_data")
  await t.engine.createVolume("web_logs")
  t.compose.calls = []
  t.engine.calls = []
  return t
}

const writes = () =>
  t.engine.calls.filter(
    (c) =>
      /^(create|remove|put|load|containerAction)/.test(c.op) &&
      c.op !== "removeContainer" &&
      !(c.op === "createContainer" && (c.args[0] as any).Labels?.["harbormaster.transfer"]),
  )

test("a dry run returns the plan and changes nothing", async () => {
  await app()
  const res = await t.call("POST", "/api/stacks/web/copy", { as: "web-staging", dry_run: true })
  expect(res.status).toBe(200)
  const plan = await res.json()
  expect(plan).toMatchObject({
    source: "web",
    target: "web-staging",
    same_server: true,
    dry_run: true,
    started: false,
    blockers: [],
    binds: [],
    images: [{ ref: "busybox:latest", on_destination: true, send: false }],
  })
  expect(plan.volumes.map((v: any) => [v.key, v.source, v.target, v.transfer])).toEqual([
    ["data", "web_data", "web-staging_data", true],
    ["logs", "web_logs", "web-staging_logs", true],
  ])
  expect(plan.warnings).toEqual(["volume never (web_never) was never created on the source; the copy creates it empty"])
  expect(t.ctx.stacks.names()).toEqual(["web"])
  expect(
    t.engine.calls.filter((c) => c.op !== "listContainers" && c.op !== "listVolumes" && c.op !== "listImages"),
  ).toEqual([])
  expect(t.compose.calls).toEqual([])
})

test("a copy on the same server under a new name writes the volumes and the stack, starts it on request (201)", async () => {
  await app()
  const res = await t.call("POST", "/api/stacks/web/copy", { as: "web-staging", start: true })
  expect(res.status).toBe(201)
  expect(await res.json()).toMatchObject({ target: "web-staging", dry_run: false, started: true })
  expect(t.engine.volumes.has("web-staging_data") && t.engine.volumes.has("web-staging_logs")).toBe(true)
  const copy = await t.ctx.stacks.read("web-staging")
  const source = await t.ctx.stacks.read("web")
  expect(copy.env).toEqual(source.env)
  expect(copy.versions).toEqual(source.versions)
  expect(t.compose.calls.map((c) => [c.project, c.args[0]])).toEqual([["web-staging", "up"]])
  expect(
    t.ctx.events
      .history()
      .some((e) => e.action === "copy" && e.message === "copied web from this server to this server as web-staging"),
  ).toBe(true)
  expect([...t.engine.containers.values()].filter((c) => c.labels["harbormaster.transfer"])).toEqual([])
})

test("blockers refuse a real copy with 409 and the plan; nothing is written", async () => {
  await app(`services:\n  app:\n    image: busybox:latest\n    volumes: ["/cache", "./conf:/conf"]\n`)
  const res = await t.call("POST", "/api/stacks/web/copy", {})
  expect(res.status).toBe(409)
  const body = await res.json()
  expect(body.error.code).toBe("copy_blocked")
  expect(body.plan.blockers.map((b: any) => b.code)).toEqual(["name_taken", "anonymous_volumes", "binds"])
  expect(body.error.message).toContain("the destination already has a stack named web")
  expect(writes()).toEqual([])
  expect(t.ctx.stacks.names()).toEqual(["web"])
})

test("a failure after the destination was written to is undone there; pre-existing volumes stay", async () => {
  await app()
  await t.engine.createVolume("web-staging_logs")
  t.compose.failures.set("up", "port is already allocated")
  const res = await t.call("POST", "/api/stacks/web/copy", { as: "web-staging", start: true, include_volumes: false })
  expect(res.status).toBe(502)
  expect((await res.json()).error.message).toContain("port is already allocated")
  expect(t.ctx.stacks.names()).toEqual(["web"])
  expect(t.engine.volumes.has("web-staging_logs")).toBe(true)

  t.compose.failures.clear()
  t.engine.volumes.delete("web-staging_logs")
  t.compose.failures.set("up", "no space left")
  const again = await t.call("POST", "/api/stacks/web/copy", { as: "web-staging", start: true })
  expect(again.status).toBe(502)
  expect([...t.engine.volumes.keys()].sort()).toEqual(["web_data", "web_logs"])
  expect(t.ctx.stacks.names()).toEqual(["web"])
})

test("an undo that fails names what to remove by hand in an error event, without secrets", async () => {
  await app()
  t.compose.failures.set("up", "boom")
  const removeVolume = t.engine.removeVolume.bind(t.engine)
  t.engine.removeVolume = async (name: string) => {
    if (name === "web-staging_data") throw engineError(409, "volume is in use")
    return removeVolume(name)
  }
  expect((await t.call("POST", "/api/stacks/web/copy", { as: "web-staging", start: true })).status).toBe(502)
  const event = t.ctx.events.history().find((e) => e.level === "error")!
  expect(event.message).toBe(
    "the copy of web to this server as web-staging failed and could not undo itself; remove by hand on this server: volume web-staging_data (volume is in use)",
  )
  expect(JSON.stringify(t.ctx.events.history())).not.toContain("hunter2")
  expect(t.engine.volumes.has("web-staging_logs")).toBe(false)
})

test.each([
  [{ from: "nowhere" }, 404, "node_not_found"],
  [{ as: "Bad Name" }, 400, "invalid_name"],
  [{ include_volumes: "yes" }, 400, "invalid_request"],
])("%p is refused", async (body, status, code) => {
  await app()
  const res = await t.call("POST", "/api/stacks/web/copy", body)
  expect(res.status).toBe(status)
  expect((await res.json()).error.code).toBe(code)
})

test("an empty body copies with the defaults (blocked here: same server, same name)", async () => {
  await app()
  const res = await t.call("POST", "/api/stacks/web/copy")
  expect(res.status).toBe(409)
})

test("a copy to a node gives it the kept registries the images need, as its secrets; a failed copy takes them back", async () => {
  await app(`services:\n  app:\n    image: registry.lan/team/app:1\n`)
  t.engine.addImage(["registry.lan/team/app:1"])
  withToken(t.dataDir)
  await t.call("POST", "/api/registries", {
    name: "lan",
    address: "registry.lan/team",
    username: "u",
    password: "copy-pw-77",
  })
  await t.call("POST", "/api/registries", { name: "other", address: "other.lan", username: "o", password: "other-pw" })
  const node = await stackApp()
  withToken(node.dataDir)
  const served = serveApp(node)
  try {
    await t.ctx.nodes.register({ server_id: node.ctx.serverId, name: "n1", url: served.url })
    const dry = await t.call("POST", "/api/stacks/web/copy", { to: "n1", dry_run: true })
    expect((await dry.json()).registries).toEqual([{ name: "lan", address: "registry.lan/team", send: true }])
    expect(await node.ctx.registries.list()).toEqual([])

    node.compose.failures.set("up", "boom")
    const failed = await t.call("POST", "/api/stacks/web/copy", { to: "n1", start: true })
    expect(failed.status).toBe(502)
    expect(await node.ctx.registries.list()).toEqual([])

    node.compose.failures.clear()
    const res = await t.call("POST", "/api/stacks/web/copy", { to: "n1", start: true })
    expect(res.status).toBe(201)
    expect(await res.text()).not.toContain("copy-pw-77")
    expect((await node.ctx.registries.list()).map((r) => [r.name, r.address, r.origin, r.has_password])).toEqual([
      ["lan", "registry.lan/team", "control_plane", true],
    ])
    expect(await node.ctx.registries.engineAuth("registry.lan/team/app:1")).toBe(
      await t.ctx.registries.engineAuth("registry.lan/team/app:1"),
    )
    // On this server the registries are kept already: nothing is sent.
    const local = await t.call("POST", "/api/stacks/web/copy", { as: "web2", dry_run: true })
    expect((await local.json()).registries).toEqual([{ name: "lan", address: "registry.lan/team", send: false }])
  } finally {
    served.stop()
    node.close()
  }
})
