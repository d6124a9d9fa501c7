// The engine flavour under test, as the service meets it: the API version it negotiates, an engine
// that refuses an old version, and the compose CLI it finds with the environment it was given.
import { afterAll, beforeAll, expect, test } from "bun:test"
import { API_NEWEST, compareApi, parseDockerHost } from "#lib/engine/client.ts"
import { engineHost } from "../support/engine.ts"
import { startService, type Service } from "../support/service.ts"

let svc: Service
beforeAll(async () => void (svc = await startService({ DOCKER_HOST: engineHost() })))
afterAll(() => svc.stop())

const health = async (s: Service) => (await (await fetch(`${s.url}/api/health`)).json()) as any

test("the service speaks the newest API version both it and the engine know", async () => {
  const target = parseDockerHost(engineHost())
  const ping = await fetch(`${target.base}/_ping`, { unix: target.unix } as RequestInit)
  const engineNewest = ping.headers.get("api-version")!
  const body = await health(svc)
  expect(body.status).toBe("ok")
  expect(body.engine.api_version).toBe(engineNewest)
  expect(body.engine.client_api_version).toBe(compareApi(engineNewest, API_NEWEST) < 0 ? engineNewest : API_NEWEST)
  // Every answer of the dashboard comes from the engine at that version.
  expect((await fetch(`${svc.url}/api/dashboard`)).status).toBe(200)
})

test("an engine below its floor is answered with a 503 naming both versions", async () => {
  const target = parseDockerHost(engineHost())
  const old = await fetch(`${target.base}/v1.41/version`, { unix: target.unix } as RequestInit)
  const floor = (await health(svc)).engine.min_api_version as string | undefined
  if (!floor || compareApi(floor, "1.41") <= 0) {
    // Debian 12's engine serves 1.41: pinning it is simply spoken.
    expect(old.status).toBe(200)
    return
  }
  expect(old.status).toBe(400)
  const pinned = await startService({ DOCKER_HOST: engineHost(), DOCKER_API_VERSION: "1.41" })
  try {
    const body = await health(pinned)
    expect(body).toMatchObject({ status: "degraded", engine: { reachable: false } })
    expect(body.engine.error).toContain(`refused API 1.41 (it serves ${floor} and newer)`)
    const res = await fetch(`${pinned.url}/api/containers`)
    expect(res.status).toBe(503)
    expect((await res.json()).error.code).toBe("engine_unsupported")
  } finally {
    await pinned.stop()
  }
})

test("compose is the flavour's own, found with the service's environment", async () => {
  const expected = process.env.TEST_COMPOSE
  if (!expected)
    throw new Error("TEST_COMPOSE names the compose version of the flavour: run with `bash scripts/test.sh`")
  const res = await fetch(`${svc.url}/api/stacks`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      name: "hm-engine-compose",
      content: "services:\n  app:\n    image: busybox\n    servces: 1\n",
    }),
  })
  expect(res.status).toBe(400)
  // v1 and v2 word the same refusal differently.
  const message = (await res.json()).error.message as string
  expect(message).toMatch(
    expected === "v2"
      ? /services.app Additional property servces is not allowed/
      : /Unsupported config option for services.app: 'servces'/,
  )
})
