// No request freezes the service: against the real service and the real compose CLI, hostile inputs
// (deeply nested JSON, compose files that are large, slow to parse or over the size bound, an alias
// bomb in a file compose would `extends` from, an `up` that never ends) each get their 4xx or 504,
// while /api/health, asked one request after the other throughout, keeps answering; afterwards a
// normal deploy of the same stack works.
import { afterAll, beforeAll, expect, test } from "bun:test"
import { join } from "node:path"
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
    // Compose stopped (no process runs the stack's model any more), the new stack taken down and forgotten.
    const composing = () =>
      Bun.spawnSync(["ps", "-eo", "args"])
        .stdout.toString()
        .split("\n")
        .filter((l) => l.includes(join(patient.dataDir, "records", name)))
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
