// No request freezes the service: against the real service and the real compose CLI, hostile inputs
// (deeply nested JSON, compose files that are large, slow to parse or over the size bound, an alias
// bomb in a file compose would `extends` from, an `up` that never ends) each get their 4xx or 504,
// while /api/health, asked one request after the other throughout, keeps answering; afterwards a
// normal deploy of the same stack works. A deploy whose client goes away is undone, and its undo holds
// the stack's name and lock until it is done: listed as a managed stack meanwhile, a DELETE and a
// deploy of the same name waiting for it.
import { afterAll, beforeAll, expect, test } from "bun:test"
import type { Engine } from "#lib/engine/client.ts"
import { STACK_LABEL } from "#lib/engine/containers.ts"
import { cleanup, engineHost, realEngine, TEST_LABEL, testImage } from "../support/engine.ts"
import {
  aliasBomb,
  manyKeys,
  nestedArrays,
  nestedObjects,
  neverEnding,
  probeHealth,
  slowKeys,
  tooLarge,
} from "../support/hostile.ts"
import { startService, type Service } from "../support/service.ts"

const NAME = "hm-bounded"
/** SVC_COMPOSE_TIMEOUT: long enough for a normal `up` on a loaded machine, short for a test. */
const COMPOSE_TIMEOUT = 20

let engine: Engine
let svc: Service

beforeAll(async () => {
  engine = realEngine()
  await cleanup(engine)
  svc = await startService({ DOCKER_HOST: engineHost(), SVC_COMPOSE_TIMEOUT: String(COMPOSE_TIMEOUT) })
})
afterAll(async () => {
  await fetch(`${svc.url}/api/stacks/${NAME}?volumes=true`, { method: "DELETE" }).catch(() => {})
  await svc.stop()
  await cleanup(engine)
})

async function post(path: string, body: string): Promise<{ status: number; code?: string; message?: string }> {
  const res = await fetch(`${svc.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
  })
  const json = (await res.json()) as { error?: { code: string; message: string } }
  return { status: res.status, code: json.error?.code, message: json.error?.message }
}

const deploy = (content: string, files?: Record<string, string>) =>
  JSON.stringify({ name: NAME, content, ...(files ? { files } : {}) })

const idle = `services:
  app:
    image: ${testImage()}
    command: ["sh", "-c", "trap 'exit 0' TERM; while true; do sleep 0.2; done"]
    labels: { ${TEST_LABEL}: "1" }
`

test("hostile inputs each get their refusal while /api/health keeps answering; the stack deploys afterwards", async () => {
  const image = testImage()
  const extending = `services:\n  web:\n    extends: { file: ./base.yaml, service: base }\n    labels: { ${TEST_LABEL}: "1" }\n`
  const cases: [what: string, body: string, status: number, code: string][] = [
    ["nested arrays, 20 KB", nestedArrays(20_000), 400, "json_too_deep"],
    ["nested objects, 20 KB", nestedObjects(20_000), 400, "json_too_deep"],
    ["nested arrays, 100 KB", nestedArrays(100_000), 400, "json_too_deep"],
    ["nested objects, 100 KB", nestedObjects(100_000), 400, "json_too_deep"],
    ["1 MiB of keys compose does not know", deploy(manyKeys(image)), 400, "invalid_compose"],
    ["1 MiB of keys that take the parser minutes", deploy(slowKeys()), 400, "invalid_compose"],
    ["a 2 MiB compose file", deploy(tooLarge(image)), 413, "compose_too_large"],
    ["an alias bomb in an extends file", deploy(extending, { "base.yaml": aliasBomb(image) }), 400, "invalid_compose"],
  ]
  const probe = probeHealth(svc.url)
  const during: Record<string, number> = {}
  try {
    for (const [what, body, status, code] of cases) {
      const res = await post("/api/stacks", body)
      expect([what, res.status, res.code]).toEqual([what, status, code])
    }
    // An `up` that never ends holds the stack's lock until SVC_COMPOSE_TIMEOUT; health answers meanwhile.
    const before = probe.answered.length
    const stalled = await post("/api/stacks", deploy(neverEnding(image, TEST_LABEL)))
    during.up = probe.answered.length - before
    expect([stalled.status, stalled.code]).toEqual([504, "compose_timeout"])
    expect(stalled.message).toContain(`within ${COMPOSE_TIMEOUT} s`)
  } finally {
    await probe.stop()
  }
  expect(probe.failures).toEqual([])
  expect(during.up).toBeGreaterThan(0)

  const res = await post("/api/stacks", deploy(idle))
  expect([res.status, res.code]).toEqual([201, undefined])
  const containers = await engine.listContainers({ all: true, filters: { label: [`${STACK_LABEL}=${NAME}`] } })
  expect(containers.map((c) => [c.Labels["com.docker.compose.service"], c.State])).toEqual([["app", "running"]])
})

test("a client that goes away stops its deploy's compose run; the deploy is undone and the stack's lock is free", async () => {
  // A deadline far beyond the test's own: only the client's going away can stop this run in time.
  const patient = await startService({ DOCKER_HOST: engineHost(), SVC_COMPOSE_TIMEOUT: "900" })
  const name = "hm-gone"
  try {
    const gone = fetch(`${patient.url}/api/stacks`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name, content: neverEnding(testImage(), TEST_LABEL) }),
      signal: AbortSignal.timeout(5_000),
    })
    expect(
      await gone.then(
        () => "answered",
        (err) => (err as Error).name,
      ),
    ).toBe("TimeoutError")
    // Compose stopped (no process runs the stack's project any more), the new stack taken down and forgotten.
    const composing = () =>
      Bun.spawnSync(["ps", "-eo", "args"])
        .stdout.toString()
        .split("\n")
        .filter((l) => l.includes(` -p ${name} `))
    let left: unknown[] = ["not looked yet"]
    for (let i = 0; i < 300 && left.length; i++, await Bun.sleep(200))
      left = [
        ...composing(),
        ...(await engine.listContainers({ all: true, filters: { label: [`${STACK_LABEL}=${name}`] } })),
      ]
    expect(left).toEqual([])
    expect((await fetch(`${patient.url}/api/stacks/${name}`)).status).toBe(404)
    // The lock is free: a normal deploy of the same name goes through.
    const res = await fetch(`${patient.url}/api/stacks`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name, content: idle }),
    })
    expect(res.status).toBe(201)
  } finally {
    await fetch(`${patient.url}/api/stacks/${name}`, { method: "DELETE" }).catch(() => {})
    await patient.stop()
  }
}, 180_000)

test("the undo of an aborted first deploy holds the stack's name and lock until it is done", async () => {
  const patient = await startService({ DOCKER_HOST: engineHost(), SVC_COMPOSE_TIMEOUT: "900" })
  const name = "hm-undoing"
  const api = (path: string, init?: RequestInit) => fetch(`${patient.url}/api${path}`, init)
  // The service `web` waits forever for `slow`, which ignores SIGTERM: taking it down takes its grace period.
  const stubborn = `services:
  slow:
    image: ${testImage()}
    command: ["sh", "-c", "while true; do sleep 0.2; done"]
    stop_grace_period: 6s
    labels: { ${TEST_LABEL}: "1" }
  web:
    image: ${testImage()}
    command: ["sh", "-c", "trap 'exit 0' TERM; while true; do sleep 0.2; done"]
    labels: { ${TEST_LABEL}: "1" }
    depends_on:
      slow: { condition: service_completed_successfully }
`
  const services = async () =>
    (await engine.listContainers({ all: true, filters: { label: [`${STACK_LABEL}=${name}`] } }))
      .map((c) => c.Labels["com.docker.compose.service"])
      .sort()
  const post = (content: string, signal?: AbortSignal) =>
    api("/stacks", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name, content }),
      signal,
    })
  try {
    const gone = post(stubborn, AbortSignal.timeout(4_000))
    expect(
      await gone.then(
        () => "answered",
        (err) => (err as Error).name,
      ),
    ).toBe("TimeoutError")
    // While the undo runs: a DELETE and a deploy of the same name wait for it; each answers with what was there then.
    const removed = api(`/stacks/${name}`, { method: "DELETE" }).then(async (r) => ({
      status: r.status,
      body: await r.json(),
      left: await services(),
    }))
    const again = post(idle).then(async (r) => ({ status: r.status, left: await services() }))
    const seen: { managed: boolean | undefined; services: string[] }[] = []
    for (let i = 0; i < 300; i++, await Bun.sleep(100)) {
      const left = await services()
      if (!left.includes("slow")) break
      const listed = ((await (await api("/stacks")).json()) as { name: string; managed: boolean }[]).find(
        (s) => s.name === name,
      )
      seen.push({ managed: listed?.managed, services: left })
    }
    expect(seen.length).toBeGreaterThan(0)
    expect(seen.filter((s) => s.managed !== true)).toEqual([])
    const deleted = await removed
    expect(deleted).toEqual({ status: 200, body: { removed: name, volumes_removed: false }, left: [] })
    expect(await again).toEqual({ status: 201, left: ["app"] })
  } finally {
    await api(`/stacks/${name}`, { method: "DELETE" }).catch(() => {})
    await patient.stop()
  }
}, 180_000)
