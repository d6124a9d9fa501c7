// The host API against a real private engine, through the real service process.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test"
import { parseDockerHost, type Engine } from "#lib/engine/client.ts"
import {
  cleanup,
  engineHost,
  insideChroot,
  realEngine,
  runContainer,
  TEST_LABEL,
  testImage,
} from "../support/engine.ts"
import { startService, type Service } from "../support/service.ts"
import { collect, sseMessages } from "../support/sse.ts"
import { terminal } from "../support/terminal.ts"

// A real engine on a shared machine can be slow; timing decides nothing here.
setDefaultTimeout(30_000)

let engine: Engine
let svc: Service
const json = { "content-type": "application/json" }
/** A loop that ends promptly on SIGTERM, as PID 1 has no default signal handlers. */
const IDLE = "trap 'exit 0' TERM; while true; do sleep 0.1; done"

beforeAll(async () => {
  engine = realEngine()
  await cleanup(engine)
  svc = await startService({ DOCKER_HOST: engineHost() })
})
afterAll(async () => {
  await svc.stop()
  await cleanup(engine)
})

const api = (path: string, init?: RequestInit) => fetch(`${svc.url}/api${path}`, init)
const state = async (id: string) => (await engine.inspectContainer(id)).State.Status

test("each action moves a real container", async () => {
  const id = await runContainer(engine, "hm-host-action", IDLE)
  for (const [action, expected] of [
    ["pause", "paused"],
    ["unpause", "running"],
    ["stop", "exited"],
    ["start", "running"],
    ["restart", "running"],
  ] as const) {
    const res = await api(`/containers/${id}/action`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ action }),
    })
    expect(await res.json()).toMatchObject({ id, action, state: expected })
    expect(await state(id)).toBe(expected)
  }
  for (const action of ["start", "unpause"]) {
    const again = await api(`/containers/${id}/action`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ action }),
    })
    expect(again.status).toBe(409)
  }
  const wrong = await api(`/containers/${id}/action`, {
    method: "POST",
    headers: json,
    body: JSON.stringify({ action: "kill" }),
  })
  expect(wrong.status).toBe(400)
})

test("list, inspect and delete a real container", async () => {
  const id = await runContainer(engine, "hm-host-inspect", IDLE, { ExposedPorts: { "8080/tcp": {} } })
  const listed = await (await api("/containers")).json()
  expect(listed.find((c: { id: string }) => c.id === id)).toMatchObject({
    name: "hm-host-inspect",
    state: "running",
    image: testImage(),
    labels: { [TEST_LABEL]: "1" },
  })
  const detail = await (await api(`/containers/hm-host-inspect`)).json()
  expect(detail).toMatchObject({
    id,
    name: "hm-host-inspect",
    state: "running",
    tty: false,
    command: ["sh", "-c", IDLE],
    ports: [{ private_port: 8080, type: "tcp" }],
  })
  expect((await api(`/containers/${id}`, { method: "DELETE" })).status).toBe(409)
  expect((await api(`/containers/${id}?force=true`, { method: "DELETE" })).status).toBe(200)
  expect((await api(`/containers/${id}`)).status).toBe(404)
})

test("a real start event arrives on the event stream, and in the history", async () => {
  const res = await api("/events")
  const messages = sseMessages(res)
  const first = messages.next()
  await Bun.sleep(200)
  const id = await runContainer(engine, "hm-host-events", IDLE)
  let event = (await first).value
  while (!(event.type === "container" && event.action === "start" && event.id === id))
    event = (await messages.next()).value
  expect(event).toMatchObject({
    source: "engine",
    name: "hm-host-events",
    attributes: { image: testImage(), [TEST_LABEL]: "1" },
  })
  await messages.return(undefined)
  const history = await (await api("/events/history")).json()
  expect(history.some((e: { id: string; action: string }) => e.id === id && e.action === "start")).toBe(true)
})

test("the log stream follows a chatty container", async () => {
  const id = await runContainer(
    engine,
    "hm-host-chatty",
    "i=0; while true; do echo tick-$i; echo oops-$i >&2; i=$((i+1)); sleep 0.1; done",
  )
  await Bun.sleep(300)
  const before = (await engine.inspectContainer(id)).State.StartedAt
  const got = await collect(
    await api(`/containers/${id}/logs?tail=0`),
    (m) => m.filter((l) => l.stream === "stdout").length >= 5,
  )
  const ticks = got.filter((l) => l.stream === "stdout").map((l) => Number(l.line.slice(5)))
  expect(ticks.slice(1)).toEqual(ticks.slice(1).map((_, i) => ticks[0]! + i + 1))
  expect(ticks[0]).toBeGreaterThan(0)
  expect(got.find((l) => l.stream === "stderr")).toMatchObject({
    service: "hm-host-chatty",
    container: "hm-host-chatty",
    line: expect.stringMatching(/^oops-\d+$/),
  })
  expect(Date.parse(got[0].ts)).toBeGreaterThan(Date.parse(before!))
})

test("follow=false sends the last lines and ends", async () => {
  const id = await runContainer(engine, "hm-host-snapshot", "for i in 1 2 3 4 5; do echo line-$i; done")
  await engine.waitContainer(id)
  const got = await collect(await api(`/containers/${id}/logs?follow=false&tail=3`))
  expect(got.map((l) => l.line)).toEqual(["line-3", "line-4", "line-5"])
  expect(got[0]).toMatchObject({
    service: "hm-host-snapshot",
    container: "hm-host-snapshot",
    stream: "stdout",
    ts: expect.stringMatching(/^\d{4}-/),
  })
})

const shell = (id: string, query = "") =>
  terminal(`${svc.url.replace("http:", "ws:")}/api/containers/${id}/shell${query}`)

test("the shell runs a command over a real WebSocket, resizes, and ends with the shell", async () => {
  const id = await runContainer(engine, "hm-host-shell", IDLE)
  const s = await shell(id, "?cols=100&rows=30")
  await s.prompt()
  s.type("stty size\n")
  expect((await s.waitFor(/\b30 100\b/))?.[0]).toBe("30 100")
  s.type("echo hi-$((1+2))\n")
  expect((await s.waitFor(/hi-3/))?.[0]).toBe("hi-3")
  s.ws.send(JSON.stringify({ type: "resize", cols: 123, rows: 45 }))
  await Bun.sleep(100)
  s.type("stty size\n")
  expect((await s.waitFor(/\b45 123\b/))?.[0]).toBe("45 123")
  s.type("exit 7\n")
  const close = await s.closed
  expect([close.code, close.reason]).toEqual([1000, "exit 7"])
})

// Inside a chroot (a test root made with debootstrap), the engine's exec runs in the mount
// namespace's real root, outside both the chroot and the container: the shell is then the
// machine's own /bin/sh (dash, no line editor), not the container's.
test.skipIf(insideChroot())(
  "the container's line editor gets Ctrl-P Ctrl-Q, the engine's default detach keys, and keeps the session",
  async () => {
    const id = await runContainer(engine, "hm-host-shell-keys", IDLE)
    const s = await shell(id)
    await s.prompt()
    s.type("echo first\n")
    await s.waitFor(/\nfirst/)
    // Typed at the prompt, where the editor has the terminal: Ctrl-P recalls the line, Ctrl-C drops it.
    await s.prompt()
    s.type("\x10\x11\x03echo still-$((2*3))\n")
    expect((await s.waitFor(/still-6/))[0]).toBe("still-6")
    s.type("exit\n")
    expect((await s.closed).code).toBe(1000)
  },
)

test("the shell carries a flood of output and a long paste intact", async () => {
  const id = await runContainer(engine, "hm-host-shell-flood", IDLE)
  const s = await shell(id)
  await s.prompt()
  s.type("seq 1 200000 | tail -n 1; seq 1 200000; echo flood-$((6*7))\n")
  await s.waitFor(/flood-42/)
  expect(s.output().match(/^200000\r?$/gm)?.length).toBe(2)
  s.type(`echo ${"x".repeat(100_000)} | wc -c\n`)
  expect((await s.waitFor(/^\s*(100001)\r?$/m))?.[1]).toBe("100001")
  s.ws.close()
})

test("closing the socket ends the shell", async () => {
  const id = await runContainer(engine, "hm-host-shell-close", IDLE)
  const s = await shell(id)
  s.type("echo $$ > /tmp/shell.pid; echo ready\n")
  await s.waitFor(/ready\r?\n/)
  s.ws.close()
  await s.closed
  const probe = async () => {
    const p = await shell(id)
    p.type("kill -0 $(cat /tmp/shell.pid) 2>/dev/null && echo ALIVE || echo GONE\n")
    const m = await p.waitFor(/\b(ALIVE|GONE)\r?\n/)
    p.ws.close()
    return m?.[1]
  }
  let answer = await probe()
  for (let i = 0; i < 20 && answer === "ALIVE"; i++) answer = (await Bun.sleep(100), await probe())
  expect(answer).toBe("GONE")
})

test("a shell into a stopped container is refused with 409", async () => {
  const { Id } = await engine.createContainer(
    { Image: testImage(), Cmd: ["true"], Labels: { [TEST_LABEL]: "1" } },
    "hm-host-created",
  )
  const res = await fetch(`${svc.url}/api/containers/${Id}/shell`, {
    headers: {
      connection: "Upgrade",
      upgrade: "websocket",
      "sec-websocket-version": "13",
      "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
    },
  })
  expect(res.status).toBe(409)
})

test("prune removes a stopped labelled container and an unused labelled volume, and keeps what is in use", async () => {
  const running = await runContainer(engine, "hm-host-keep", IDLE)
  const { Id: stopped } = await engine.createContainer(
    { Image: testImage(), Cmd: ["true"], Labels: { [TEST_LABEL]: "1" } },
    "hm-host-prune",
  )
  await engine.createVolume("hm-host-prune-vol", { [TEST_LABEL]: "1" })
  const containers = await (await api("/prune/containers", { method: "POST" })).json()
  expect(containers).toMatchObject({ kind: "containers", space_reclaimed: expect.any(Number) })
  expect(containers.removed).toContain(stopped)
  expect(containers.removed).not.toContain(running)
  expect(await state(running)).toBe("running")
  const volumes = await (await api("/prune/volumes", { method: "POST" })).json()
  expect(volumes.removed).toContain("hm-host-prune-vol")
  expect((await engine.listVolumes()).map((v) => v.Name)).not.toContain("hm-host-prune-vol")
})

test("an image prune removes unused tagged images, not only dangling ones, and keeps images in use", async () => {
  await runContainer(engine, "hm-host-image-user", IDLE)
  const { Id: source } = await engine.createContainer(
    { Image: testImage(), Cmd: ["true"], Labels: { [TEST_LABEL]: "1" } },
    "hm-host-image-src",
  )
  const { Id: unused } = await engine.commitContainer(source, "hm-host/unused", "1", [`LABEL ${TEST_LABEL}=1`])
  await engine.removeContainer(source)
  const pruned = await (await api("/prune/images", { method: "POST" })).json()
  expect(pruned.kind).toBe("images")
  expect(pruned.removed).toContain(unused)
  expect(pruned.untagged).toContain("hm-host/unused:1")
  const left = (await engine.listImages()).flatMap((i) => i.RepoTags ?? [])
  expect(left).toContain(testImage())
  expect(left).not.toContain("hm-host/unused:1")
})

test("an image tag is deleted, forcefully, and the listing shows it gone", async () => {
  await engine.tagImage(testImage(), "hm-host/doomed", "1")
  const listed = await (await api("/images")).json()
  expect(listed.some((i: { tags: string[] }) => i.tags.includes("hm-host/doomed:1"))).toBe(true)
  const res = await api(`/images/${encodeURIComponent("hm-host/doomed:1")}`, { method: "DELETE" })
  expect(await res.json()).toMatchObject({ untagged: ["hm-host/doomed:1"] })
  const after = await (await api("/images")).json()
  expect(after.some((i: { tags: string[] }) => i.tags.includes("hm-host/doomed:1"))).toBe(false)
  expect(after.some((i: { tags: string[] }) => i.tags.includes(testImage()))).toBe(true)
  expect((await api("/images/hm-host-nope:9", { method: "DELETE" })).status).toBe(404)
})

test("a volume is deleted; one in use is a 409", async () => {
  await engine.createVolume("hm-host-vol", { [TEST_LABEL]: "1" })
  await engine.createVolume("hm-host-vol-used", { [TEST_LABEL]: "1" })
  await runContainer(engine, "hm-host-vol-user", IDLE, { HostConfig: { Binds: ["hm-host-vol-used:/data"] } })
  expect((await (await api("/volumes")).json()).map((v: { name: string }) => v.name)).toContain("hm-host-vol")
  expect(await (await api("/volumes/hm-host-vol", { method: "DELETE" })).json()).toEqual({
    name: "hm-host-vol",
    removed: true,
  })
  expect((await engine.listVolumes()).map((v) => v.Name)).not.toContain("hm-host-vol")
  expect((await api("/volumes/hm-host-vol-used", { method: "DELETE" })).status).toBe(409)
  expect((await api("/volumes/hm-host-vol", { method: "DELETE" })).status).toBe(404)
})

/** The service never creates networks (stacks do, through compose): the test asks the engine itself. */
async function createNetwork(name: string): Promise<string> {
  const target = parseDockerHost(engineHost())
  const created = await fetch(`${target.base}/v${await engine.apiVersion()}/networks/create`, {
    method: "POST",
    headers: json,
    body: JSON.stringify({ Name: name, Labels: { [TEST_LABEL]: "1" } }),
    unix: target.unix,
  } as RequestInit)
  return (await created.json()).Id
}

test("a network prune removes an unused network", async () => {
  const id = await createNetwork("hm-host-net-unused")
  const pruned = await (await api("/prune/networks", { method: "POST" })).json()
  expect(pruned).toMatchObject({ kind: "networks", removed: expect.arrayContaining(["hm-host-net-unused"]) })
  expect((await engine.listNetworks()).map((n) => n.Id)).not.toContain(id)
})

test("a network is deleted; a pre-defined one is refused", async () => {
  const Id = await createNetwork("hm-host-net")
  expect((await (await api("/networks")).json()).find((n: { id: string }) => n.id === Id)).toMatchObject({
    name: "hm-host-net",
    driver: "bridge",
    labels: { [TEST_LABEL]: "1" },
  })
  expect(await (await api(`/networks/${Id}`, { method: "DELETE" })).json()).toEqual({ id: Id, removed: true })
  expect((await engine.listNetworks()).map((n) => n.Id)).not.toContain(Id)
  expect((await api(`/networks/${Id}`, { method: "DELETE" })).status).toBe(404)
  expect((await api("/networks/bridge", { method: "DELETE" })).status).toBe(409)
})

test("the dashboard counts real containers by state and lists them all", async () => {
  const { Id } = await engine.createContainer(
    { Image: testImage(), Cmd: ["true"], Labels: { [TEST_LABEL]: "1" } },
    "hm-host-dash",
  )
  const body = await (await api("/dashboard")).json()
  const all = await engine.listContainers({ all: true })
  expect(body.engine.version).toBe((await engine.version()).Version)
  expect(body.container_states.total).toBe(all.length)
  expect(body.container_states.running).toBe(all.filter((c) => c.State === "running").length)
  expect(body.container_states.created).toBeGreaterThanOrEqual(1)
  expect(body.containers.find((c: { id: string }) => c.id === Id)).toMatchObject({
    name: "hm-host-dash",
    state: "created",
  })
  expect(body.images.count).toBeGreaterThanOrEqual(1)
  expect(body.disk.images).toBeGreaterThan(0)
})
