// Guarded updates against the real engine, compose and a real registry (all in the private engine's
// network namespace, the service too): v1 of a small image is pushed and deployed, then new images
// are pushed under the same tag: one that exits at start, one whose healthcheck fails, one that
// restarts in a loop (each rolled back to the previous digest: the container runs the old image id
// again), a good one (updated), the same tag again (unchanged). Policies: an `apply` stack is updated
// by the scheduler, a `notify` stack is not touched and a webhook stand-in receives update_available.
// A notification endpoint that never answers holds nothing up.
import { afterAll, beforeAll, expect, test } from "bun:test"
import { join } from "node:path"
import type { Engine } from "#lib/engine/client.ts"
import { cleanup, engineHost, insideChroot, realEngine, TEST_LABEL, testImage } from "../support/engine.ts"
import { netnsA, startRegistry, veth, type TestRegistry } from "../support/netns.ts"
import { startService, type Service } from "../support/service.ts"

// Health checks run as execs in the container: inside a chroot (a test root made with debootstrap)
// the engine's exec runs in the machine's real root instead, so no check can pass there.
const guarded = test.skipIf(insideChroot())

let engine: Engine
let registry: TestRegistry
let link: Awaited<ReturnType<typeof veth>>
let service: Service
let repo: string
const made: string[] = []
/** Each case pushes images and runs compose several times: minutes on a loaded machine with compose v1. */
const SLOW = 300_000
const stacks = ["hmwatch", "hmloop", "hmapply", "hmnotify"]

/** What the notification stand-ins received. */
const hooks: { body: any }[] = []
const ntfy: { title: string | null; text: string }[] = []
let hanging = 0
let servers: ReturnType<typeof Bun.serve>[] = []

beforeAll(async () => {
  engine = realEngine()
  const ns = netnsA()
  registry = await startRegistry(ns)
  link = await veth(ns)
  repo = `${registry.host}/hm/watch`
  const hostSide = link.inside.replace(/\.2$/, ".1")
  const hook = Bun.serve({
    hostname: hostSide,
    port: 0,
    fetch: async (req) => (hooks.push({ body: await req.json() }), new Response("ok")),
  })
  const topic = Bun.serve({
    hostname: hostSide,
    port: 0,
    fetch: async (req) => (ntfy.push({ title: req.headers.get("title"), text: await req.text() }), new Response("{}")),
  })
  // An endpoint that takes the request and never answers.
  const stuck = Bun.serve({
    hostname: hostSide,
    port: 0,
    idleTimeout: 0,
    fetch: () => (hanging++, new Promise<Response>(() => {})),
  })
  servers = [hook, topic, stuck]
  service = await startService(
    {
      DOCKER_HOST: engineHost(),
      SVC_UPDATE_WATCH: "30",
      SVC_NOTIFY_URLS: `http://${hostSide}:${stuck.port}/hang,http://${hostSide}:${hook.port}/hook,ntfy+http://${hostSide}:${topic.port}/updates`,
    },
    { host: link.inside, cmd: ["ip", "netns", "exec", ns, "bun", join(import.meta.dir, "../../server.ts")] },
  )
}, SLOW)

afterAll(async () => {
  for (const s of stacks) await fetch(`${service.url}/api/stacks/${s}`, { method: "DELETE" }).catch(() => {})
  await cleanup(engine)
  for (const ref of made) await engine.removeImage(ref, { force: true }).catch(() => {})
  await service?.stop()
  for (const s of servers) s.stop(true)
  await link?.remove()
  await registry?.stop()
}, SLOW)

type Kind = "good" | "exits" | "unhealthy" | "loop"
const LOOP = "trap 'exit 0' TERM; while :; do sleep 1; done"

/** Commits a variant of the test image under repo:tag (a unique file makes a new digest), pushes it, and answers its id. */
async function push(kind: Kind, tag: string): Promise<string> {
  const healthy = { Test: ["CMD-SHELL", "test -f /version"], Interval: 1e9, Timeout: 2e9, Retries: 2 }
  const failing = { Test: ["CMD-SHELL", "echo database unreachable; exit 1"], Interval: 1e9, Timeout: 2e9, Retries: 2 }
  const cmd = {
    good: ["sh", "-c", LOOP],
    unhealthy: ["sh", "-c", LOOP],
    exits: ["sh", "-c", "echo starting; exit 3"],
    loop: ["sh", "-c", "exit 1"],
  }[kind]
  const { Id } = await engine.createContainer({
    Image: testImage(),
    Cmd: ["sh", "-c", `echo ${kind}-${crypto.randomUUID()} > /version`],
    Labels: { [TEST_LABEL]: "1" },
    ...(kind === "good" ? { Healthcheck: healthy } : kind === "unhealthy" ? { Healthcheck: failing } : {}),
  })
  await engine.containerAction(Id, "start")
  await engine.waitContainer(Id)
  const image = await engine.commitContainer(Id, repo, tag, [`CMD ${JSON.stringify(cmd)}`])
  made.push(image.Id)
  await engine.pushImage(`${repo}:${tag}`)
  return image.Id
}

const compose = (tag: string, restart: string) =>
  `services:\n  web:\n    image: ${repo}:${tag}\n    restart: "${restart}"\n    stop_grace_period: 1s\n`

async function deploy(name: string, tag: string, restart = "no"): Promise<void> {
  const res = await fetch(`${service.url}/api/stacks`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name, content: compose(tag, restart) }),
  })
  expect(res.status).toBe(201)
}

async function webContainer(stack: string) {
  const [c] = await engine.listContainers({
    all: true,
    filters: { label: [`com.docker.compose.project=${stack}`, "com.docker.compose.service=web"] },
  })
  return engine.inspectContainer(c!.Id)
}

/** Pushes `kind` under the tag, then points the local tag back at what runs, so that the update's pull is what brings it. */
async function publish(kind: Kind, tag: string, running: string): Promise<string> {
  const id = await push(kind, tag)
  digests.set(id, await digestOf(id))
  await engine.tagImage(running, repo, tag)
  return id
}
/** Digests of pushed images, read while they still have their tag (the containerd store drops an untagged image's RepoDigests). */
const digests = new Map<string, string | undefined>()

/** The service's own events about a stack (for a failure's message). */
async function eventsOf(name: string): Promise<string> {
  const all = (await (await fetch(`${service.url}/api/events/history`)).json()) as {
    source: string
    name?: string
    action: string
    message?: string
  }[]
  return all
    .filter((e) => e.source === "service" && e.name === name)
    .map((e: any) => `${e.time} ${e.action}: ${e.message}`)
    .join("\n")
}

async function update(name: string, watch = 30): Promise<any> {
  const res = await fetch(`${service.url}/api/stacks/${name}/update`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ watch }),
    signal: AbortSignal.timeout(Number(process.env.UPDATE_TIMEOUT_MS ?? 250_000)),
  }).catch(async (err) => {
    throw new Error(`${err}; events:\n${await eventsOf(name)}`)
  })
  const body = await res.json()
  expect(res.status, JSON.stringify(body)).toBe(200)
  console.log(
    `${name}: ${body.update.verdict} in ${body.update.duration_ms} ms${body.update.reason ? ` (${body.update.reason})` : ""}`,
  )
  return body.update
}

async function history(name: string): Promise<any[]> {
  return (await (await fetch(`${service.url}/api/stacks/${name}/updates`)).json()).history
}

const digestOf = async (id: string) => (await engine.inspectImage(id)).RepoDigests.find((d) => d.startsWith(`${repo}@`))

let v1 = ""
let v1Digest: string | undefined

guarded(
  "v1 deployed; a new v1 that exits at start is rolled back to the previous digest",
  async () => {
    v1 = await push("good", "v1")
    await deploy("hmwatch", "v1")
    v1Digest = await digestOf(v1)
    expect(v1Digest).toBeDefined()
    expect((await webContainer("hmwatch")).Image).toBe(v1)
    await rolledBack("exits", /^service web: exited with code 3, 0 restarts$/)
  },
  SLOW,
)

guarded(
  "a new v1 whose healthcheck fails is rolled back, the reason carrying the healthcheck's output",
  async () => {
    await rolledBack("unhealthy", /^service web: unhealthy: database unreachable$/)
    // The compose file is the recorded one; no version was added.
    const stack = await (await fetch(`${service.url}/api/stacks/hmwatch/compose`)).json()
    expect(stack.content).toBe(compose("v1", "no"))
    expect((await (await fetch(`${service.url}/api/stacks/hmwatch`)).json()).current_version).toBe(1)
  },
  SLOW,
)

async function rolledBack(kind: Kind, reason: RegExp): Promise<void> {
  const bad = await publish(kind, "v1", v1)
  const result = await update("hmwatch")
  expect(result, `${kind}: ${await eventsOf("hmwatch")}`).toMatchObject({
    verdict: "rolled_back",
    decided_early: true,
    fix: null,
  })
  expect(result.reason).toMatch(reason)
  expect(result.images).toEqual([expect.objectContaining({ service: "web", from: v1Digest, from_id: v1, to_id: bad })])
  // The container runs the old image id again; the tag names it again.
  const web = await webContainer("hmwatch")
  expect(web.Image).toBe(v1)
  expect(web.State.Running).toBe(true)
  expect((await engine.inspectImage(`${repo}:v1`)).Id).toBe(v1)
  expect((await history("hmwatch"))[0]).toMatchObject({ verdict: "rolled_back", reason: result.reason })
}

guarded(
  "a good new v1 is updated; the same tag again is unchanged and restarts nothing; notifications went out",
  async () => {
    const v2 = await publish("good", "v1", v1)
    const good = await update("hmwatch")
    expect(good).toMatchObject({ verdict: "updated", reason: null, decided_early: true })
    expect(good.images[0]).toMatchObject({ from: v1Digest, to: digests.get(v2), to_id: v2 })
    const running = await webContainer("hmwatch")
    expect(running.Image).toBe(v2)

    const again = await update("hmwatch")
    expect(again.verdict).toBe("unchanged")
    const after = await webContainer("hmwatch")
    expect(after.Id).toBe(running.Id)
    expect(after.State.StartedAt).toBe(running.State.StartedAt)

    expect((await history("hmwatch")).map((h) => h.verdict)).toEqual([
      "unchanged",
      "updated",
      "rolled_back",
      "rolled_back",
    ])
    // Notifications went out (the webhook and ntfy) while an endpoint that never answers held its request.
    for (let i = 0; i < 100 && hooks.filter((h) => h.body.stack === "hmwatch").length < 3; i++) await Bun.sleep(100)
    expect(hooks.filter((h) => h.body.stack === "hmwatch").map((h) => h.body.event)).toEqual([
      "rolled_back",
      "rolled_back",
      "updated",
    ])
    expect(hooks[0]!.body).toMatchObject({
      event: "rolled_back",
      stack: "hmwatch",
      verdict: "rolled_back",
      reason: expect.stringContaining("service web: exited with code 3"),
    })
    expect(
      ntfy.some((n) => n.title === "Harbormaster: rolled back (hmwatch)" && n.text.includes("exited with code 3")),
    ).toBe(true)
    expect(hanging).toBeGreaterThanOrEqual(3)
  },
  SLOW,
)

guarded(
  "an image that restarts in a loop is rolled back once it has restarted past the threshold",
  async () => {
    const good = await push("good", "loop")
    await deploy("hmloop", "loop", "always")
    const bad = await publish("loop", "loop", good)
    const result = await update("hmloop")
    expect(result).toMatchObject({ verdict: "rolled_back", decided_early: true })
    expect(result.reason).toMatch(/^service web: exited with code 1, [3-9] restarts$/)
    expect(result.images[0].to_id).toBe(bad)
    expect((await webContainer("hmloop")).Image).toBe(good)
  },
  SLOW,
)

guarded(
  "policies: an apply stack is updated by the scheduler; a notify stack is left alone and update_available is sent",
  async () => {
    const applyV1 = await push("good", "apply")
    const notifyV1 = await push("good", "notify")
    await deploy("hmapply", "apply")
    await deploy("hmnotify", "notify")
    const put = (name: string, policy: unknown) =>
      fetch(`${service.url}/api/stacks/${name}/policy`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(policy),
      })
    expect((await put("hmapply", { auto_update: "apply", schedule: "2s", watch: 20 })).status).toBe(200)
    expect((await put("hmnotify", { auto_update: "notify", schedule: "*/2 * * * * *", watch: 20 })).status).toBe(200)
    expect(await (await fetch(`${service.url}/api/stacks/hmapply/policy`)).json()).toMatchObject({
      auto_update: "apply",
      schedule: "2s",
      watch: 20,
    })

    const applyV2 = await publish("good", "apply", applyV1)
    const notifyV2 = await publish("good", "notify", notifyV1)
    let applied: any[] = []
    for (let i = 0; i < 300 && !applied.length; i++) {
      applied = await history("hmapply")
      if (!applied.length) await Bun.sleep(200)
    }
    expect(applied[0]).toMatchObject({ verdict: "updated", trigger: "policy" })
    expect((await webContainer("hmapply")).Image).toBe(applyV2)

    for (
      let i = 0;
      i < 300 && !hooks.some((h) => h.body.event === "update_available" && h.body.stack === "hmnotify");
      i++
    )
      await Bun.sleep(100)
    const available = hooks.find((h) => h.body.event === "update_available" && h.body.stack === "hmnotify")
    expect(available?.body).toMatchObject({
      stack: "hmnotify",
      images: [expect.objectContaining({ ref: `${repo}:notify`, to: digests.get(notifyV2)!.split("@")[1] })],
    })
    expect((await webContainer("hmnotify")).Image).toBe(notifyV1)
    expect(await history("hmnotify")).toEqual([])
    // Announced once per new digest.
    await Bun.sleep(4500)
    expect(hooks.filter((h) => h.body.event === "update_available" && h.body.stack === "hmnotify")).toHaveLength(1)
  },
  SLOW,
)

guarded(
  "a watched apply of an environment that makes the service exit goes back to the environment before",
  async () => {
    const name = "hmenvwatch"
    stacks.push(name)
    const content = `services:\n  web:\n    image: ${testImage()}\n    command: ["sh", "-c", "test \\"$$MODE\\" = good || exit 4; ${LOOP}"]\n    environment: { MODE: "\${MODE}" }\n    stop_grace_period: 1s\n`
    const call = (method: string, path: string, body?: unknown) =>
      fetch(`${service.url}/api/stacks/${name}${path}`, {
        method,
        headers: { "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      })
    const created = await fetch(`${service.url}/api/stacks`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name, content, env: [{ key: "MODE", value: "good", secret: false }] }),
    })
    expect(created.status).toBe(201)
    const before = await webContainer(name)
    expect(before.State.Running).toBe(true)
    expect((await call("PUT", "/env", [{ key: "MODE", value: "bad", secret: false }])).status).toBe(200)
    const res = await call("POST", "/apply", { watch: 30 })
    const body = await res.json()
    expect(res.status, JSON.stringify(body)).toBe(200)
    expect(body.update).toMatchObject({
      verdict: "rolled_back",
      reason: expect.stringMatching(/^service web: exited with code 4/),
    })
    expect(body.update.decided_early).toBe(true)
    const env = await (await call("GET", "/env")).json()
    expect(env).toEqual([expect.objectContaining({ key: "MODE", value: "good" })])
    const after = await webContainer(name)
    expect(after.State.Running).toBe(true)
    expect(after.Config.Env).toContain("MODE=good")
    expect(body.current_version).toBe(1)
  },
  SLOW,
)

guarded(
  "a watched deploy of a compose file whose service exits goes back to the compose file before",
  async () => {
    const name = "hmenvwatch"
    const before = await (await fetch(`${service.url}/api/stacks/${name}/compose`)).text()
    const broken = `services:\n  web:\n    image: ${testImage()}\n    command: ["sh", "-c", "exit 5"]\n    stop_grace_period: 1s\n`
    const res = await fetch(`${service.url}/api/stacks`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name, content: broken, watch: 30 }),
    })
    const body = await res.json()
    expect(res.status, JSON.stringify(body)).toBe(200)
    expect(body.update).toMatchObject({
      action: "deploy",
      verdict: "rolled_back",
      reason: expect.stringMatching(/^service web: exited with code 5/),
    })
    expect(await (await fetch(`${service.url}/api/stacks/${name}/compose`)).text()).toBe(before)
    const after = await webContainer(name)
    expect(after.State.Running).toBe(true)
    expect(after.Config.Env).toContain("MODE=good")
  },
  SLOW,
)
