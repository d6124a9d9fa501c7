// 200 concurrent subscribers on the events stream each receive every event, in order.
import { afterAll, beforeAll, expect, test } from "bun:test"
import { cleanup, engineHost, realEngine, runContainer } from "../support/engine.ts"
import { startService, type Service } from "../support/service.ts"
import { collect } from "../support/sse.ts"

const SUBSCRIBERS = 200
const CONTAINERS = 5
let svc: Service
const engine = realEngine()

beforeAll(async () => {
  svc = await startService({ DOCKER_HOST: engineHost() })
})
afterAll(async () => {
  await cleanup(engine)
  await svc.stop()
})

test(`${SUBSCRIBERS} SSE subscribers all receive every engine event`, async () => {
  const marker = `fanout-${Date.now()}`
  const streams = await Promise.all(Array.from({ length: SUBSCRIBERS }, () => fetch(`${svc.url}/api/events`)))
  expect(streams.every((r) => r.status === 200)).toBe(true)
  const done = (ms: any[]) =>
    ms.filter((m) => m.name?.startsWith(marker) && m.action === "destroy").length === CONTAINERS
  const received = Promise.all(streams.map((r) => collect(r, done)))

  for (let i = 0; i < CONTAINERS; i++) {
    const id = await runContainer(engine, `${marker}-${i}`, "true")
    await engine.waitContainer(id)
    await engine.removeContainer(id, { force: true })
  }
  const all = await received
  const history = (await (await fetch(`${svc.url}/api/events/history`)).json()) as any[]
  const ours = history.filter((e) => e.name?.startsWith(marker)).map((e) => e.seq)
  // Each container is created, started, dies and is destroyed.
  expect(ours.length).toBeGreaterThanOrEqual(CONTAINERS * 4)
  for (const messages of all) expect(messages.filter((m) => m.name?.startsWith(marker)).map((m) => m.seq)).toEqual(ours)
})
