// A bind resolved through a link that a container planted in its stack's folder after the service
// checked the compose model, against the real engines and compose CLI, through the real service. A
// folder of the test's own stands in for the host, with a marker file; no container may write there.
// - a service `a` binds the stack's folder, makes data/x a link to the host folder (and the stack's
//   file `token` one to its marker) and completes (not a healthcheck: an exec does not see the
//   container's files when the engine itself runs in a chroot); `b`, which depends on it, binds ./data/x (and
//   `s` has ./token as a secret): the engine follows the links when it starts them, and the service takes both down (the
//   store's check after `up` or the watcher, whichever sees them first);
// - a container with `restart: always`, deployed well, whose source becomes such a link afterwards
//   and whose process is killed: the engine starts it again through the link, and the watcher takes
//   it down (restart policy "no", killed), for good.
// - the check itself, on a container whose bind went through a link that is a folder again since:
//   the kernel's mounts still show the host folder it reached.
// Each container writes to its bind only seconds after it starts, longer than the check takes, so
// that an empty host folder shows the container was stopped before it could write (the time from its
// start to its stop is printed).
import { afterAll, beforeAll, expect, test } from "bun:test"
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { SERVICE_LABEL, STACK_LABEL } from "#lib/engine/containers.ts"
import type { ContainerSummary, Engine } from "#lib/engine/client.ts"
import { allowedIn } from "#lib/stacks/host-paths.ts"
import { escapesOf } from "#lib/stacks/live-mounts.ts"
import { cleanup, engineHost, realEngine, runContainer, TEST_LABEL, testImage } from "../support/engine.ts"
import { startService, type Service } from "../support/service.ts"

let engine: Engine
let svc: Service
/** Stands in for the host. */
let host: string
const STACKS = ["hm-live-deps", "hm-live-restart"]
/** Seconds a container waits before it writes to its bind. */
const WRITE_AFTER = 6

beforeAll(async () => {
  engine = realEngine()
  await cleanup(engine)
  host = mkdtempSync(join(tmpdir(), "hm-live-host-"))
  writeFileSync(join(host, "marker"), "the host's own\n")
  svc = await startService({ DOCKER_HOST: engineHost() })
})
afterAll(async () => {
  for (const name of STACKS) await call("DELETE", `/api/stacks/${name}?volumes=true`).catch(() => {})
  await svc.stop()
  await cleanup(engine)
  rmSync(host, { recursive: true, force: true })
})

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(`${svc.url}${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  })
  const text = await res.text()
  return { status: res.status, body: (text ? JSON.parse(text) : null) as any }
}

const serviceOf = async (stack: string, service: string): Promise<ContainerSummary | undefined> =>
  (await engine.listContainers({ all: true, filters: { label: [`${STACK_LABEL}=${stack}`] } })).find(
    (c) => c.Labels[SERVICE_LABEL] === service,
  )

const refusals = async (stack: string) =>
  ((await call("GET", "/api/events/history")).body as any[]).filter(
    (e) => e.action === "mount_refused" && e.name === stack,
  )

/** How long a container ran: its last start and the kill that followed, as the engine timed them (ms). */
async function ranFor(id: string): Promise<number> {
  const history = ((await call("GET", "/api/events/history")).body as any[]).filter(
    (e) => e.source === "engine" && e.id === id,
  )
  const started = history.findLastIndex((e) => e.action === "start")
  const killed = history.slice(started).find((e) => e.action === "kill")
  return Date.parse(killed.time) - Date.parse(history[started].time)
}

/** Writes `file` into /mnt WRITE_AFTER seconds after the container starts, then idles. */
const writer = (file: string) =>
  `["sh", "-c", "trap 'exit 0' TERM; sleep ${WRITE_AFTER}; date >> /mnt/${file}; while true; do sleep 1; done"]`

test("a service whose bind follows a link another service planted at start is taken down before it writes to the host", async () => {
  const name = STACKS[0]!
  const compose = `services:
  a:
    image: ${testImage()}
    command: ["sh", "-c", "rm -rf /stack/data/x /stack/token; ln -s ${host} /stack/data/x; ln -s ${host}/marker /stack/token"]
    volumes: [".:/stack"]
    labels: { ${TEST_LABEL}: "1" }
  b:
    image: ${testImage()}
    command: ${writer("escaped")}
    depends_on: { a: { condition: service_completed_successfully } }
    volumes: ["./data/x:/mnt"]
    labels: { ${TEST_LABEL}: "1" }
  s:
    image: ${testImage()}
    command: ["sh", "-c", "trap 'exit 0' TERM; while true; do sleep 1; done"]
    depends_on: { a: { condition: service_completed_successfully } }
    secrets: [token]
    labels: { ${TEST_LABEL}: "1" }
secrets:
  token: { file: ./token }
`
  const deployed = await call("POST", "/api/stacks", {
    name,
    content: compose,
    env: [],
    files: { token: "the stack's own\n" },
  })
  // The store's check after `up` fails the deploy (and undoes it); where the watcher stopped b first, the deploy may stand.
  if (deployed.status !== 201)
    expect([deployed.status, deployed.body.error.code, deployed.body.error.message]).toEqual([
      400,
      "host_path_refused",
      expect.any(String),
    ])
  const refused = (await refusals(name)).sort((x, y) => x.message.localeCompare(y.message))
  expect(refused).toEqual([
    expect.objectContaining({
      source: "service",
      type: "stack",
      level: "error",
      message: expect.stringContaining(`service b: its bind at /mnt reached ${host},`),
    }),
    expect.objectContaining({
      source: "service",
      type: "stack",
      level: "error",
      message: expect.stringContaining(`service s: its bind at /run/secrets/token reached ${host}/marker,`),
    }),
  ])
  for (const [service, event] of [
    ["b", refused[0]],
    ["s", refused[1]],
  ]) {
    console.log(
      `live mounts: ${service} ran ${await ranFor(event.id)} ms before it was killed (deploy answered ${deployed.status})`,
    )
    const c = await serviceOf(name, service)
    if (!c) continue
    expect(c.State).not.toBe("running")
    expect(((await engine.inspectContainer(c.Id)).HostConfig.RestartPolicy as { Name: string }).Name).toBe("no")
  }
  await Bun.sleep((WRITE_AFTER + 2) * 1000)
  expect(readdirSync(host)).toEqual(["marker"])
}, 120_000)

test("a container with restart: always that the engine starts again through a link planted since is taken down for good", async () => {
  const name = STACKS[1]!
  const compose = `services:
  c:
    image: ${testImage()}
    command: ${writer("restarted")}
    restart: always
    volumes: ["./data/y:/mnt"]
    labels: { ${TEST_LABEL}: "1" }
`
  const deployed = await call("POST", "/api/stacks", { name, content: compose, env: [] })
  expect(deployed.status).toBe(201)
  const c = (await serviceOf(name, "c"))!
  const first = await engine.inspectContainer(c.Id)
  expect(first.State.Running).toBe(true)
  // What a container that binds ./data could do at any time: data/y becomes a link to the host.
  const source = join(svc.dataDir, "stacks", name, "data/y")
  rmSync(source, { recursive: true, force: true })
  symlinkSync(host, source)
  process.kill(first.State.Pid!, "SIGKILL")
  while (!(await refusals(name)).length) await Bun.sleep(50)
  const [refused] = await refusals(name)
  expect(refused).toMatchObject({
    id: c.Id,
    message: expect.stringContaining(`service c: its bind at /mnt reached ${host},`),
  })
  console.log(`live mounts: c ran ${await ranFor(c.Id)} ms after its restart before it was killed`)
  await Bun.sleep((WRITE_AFTER + 2) * 1000)
  const after = await engine.inspectContainer(c.Id)
  expect([
    after.State.Running,
    after.State.StartedAt !== first.State.StartedAt,
    (after.HostConfig.RestartPolicy as { Name: string }).Name,
  ]).toEqual([false, true, "no"])
  expect(readdirSync(host)).toEqual(["marker"])
}, 120_000)

test("the check reads what the kernel mounted: a bind whose link is a plain folder again since still shows the host folder it reached; the engine's kill and update", async () => {
  const stack = mkdtempSync(join(tmpdir(), "hm-live-stack-"))
  try {
    symlinkSync(host, join(stack, "x"))
    const id = await runContainer(engine, "hm-live-probe", "sleep 120", {
      HostConfig: { Binds: [`${stack}:/stack`, `${join(stack, "x")}:/mnt`], RestartPolicy: { Name: "always" } },
    })
    rmSync(join(stack, "x"))
    mkdirSync(join(stack, "x"))
    const escapes = await escapesOf(engine, await engine.inspectContainer(id), allowedIn(stack, []))
    expect(escapes.map((e) => [e.container, e.destination, e.path])).toEqual([["hm-live-probe", "/mnt", host]])
    // What taking it down asks of the engine. A kill through the API is a stop by hand: `always` does
    // not start the container again (the engine's first restart comes 100 ms after an exit); a second
    // kill is the conflict the takedown takes for "already stopped".
    await engine.killContainer(id)
    await engine.waitContainer(id)
    await Bun.sleep(1000)
    expect(await engine.killContainer(id).catch((err) => err.kind)).toBe("conflict")
    expect((await engine.inspectContainer(id)).State.Running).toBe(false)
    await engine.updateContainer(id, { RestartPolicy: { Name: "no" } })
    expect((await engine.inspectContainer(id)).HostConfig.RestartPolicy).toMatchObject({ Name: "no" })
  } finally {
    await cleanup(engine)
    rmSync(stack, { recursive: true, force: true })
  }
}, 60_000)
