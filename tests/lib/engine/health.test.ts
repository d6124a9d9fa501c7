// What /api/health says of the engine: one round trip shared by the callers at the same moment, and
// a deadline for an engine that never answers, whose requests are then given up.
import { expect, test } from "bun:test"
import type { Engine } from "#lib/engine/client.ts"
import { unavailable } from "#lib/errors/errors.ts"
import { engineHealth } from "#lib/engine/health.ts"

const VERSION = { Version: "29.0.0", ApiVersion: "1.52", MinAPIVersion: "1.44", Os: "linux", Arch: "amd64" }

/** An engine whose /version and /info answer as `answer` says, counting the calls and keeping the signals given. */
function engine(answer: { version?: () => Promise<unknown>; info?: () => Promise<unknown> } = {}) {
  const seen = { version: 0, info: 0, signals: [] as AbortSignal[] }
  const e = {
    host: "unix:///run/test.sock",
    apiVersion: async () => "1.52",
    version: (signal?: AbortSignal) => (
      seen.version++, signal && seen.signals.push(signal), answer.version?.() ?? Promise.resolve(VERSION)
    ),
    info: (signal?: AbortSignal) => (
      seen.info++,
      signal && seen.signals.push(signal),
      answer.info?.() ?? Promise.resolve({ Swarm: { LocalNodeState: "inactive" } })
    ),
  }
  return { engine: e as unknown as Engine, seen }
}

const never = () => new Promise<never>(() => {})

test("callers at the same moment share one round trip; a caller after the answer asks again", async () => {
  const { engine: e, seen } = engine()
  const health = engineHealth(e)
  const [a, b] = await Promise.all([health.get(), health.get()])
  expect(a).toBe(b)
  expect(a).toMatchObject({
    reachable: true,
    version: VERSION,
    spoken: "1.52",
    info: { Swarm: { LocalNodeState: "inactive" } },
  })
  expect(seen).toMatchObject({ version: 1, info: 1 })
  await health.get()
  expect(seen).toMatchObject({ version: 2, info: 2 })
})

test("an engine that never answers is unreachable once the deadline passes, and its requests are given up", async () => {
  const { engine: e, seen } = engine({ version: never, info: never })
  const answer = await engineHealth(e, 50).get()
  expect(answer).toEqual({
    reachable: false,
    error: "the Docker engine at unix:///run/test.sock did not answer GET /version within 0.05 s",
  })
  expect(seen.signals.length).toBe(2)
  expect(seen.signals.every((s) => s.aborted)).toBe(true)
})

test("an engine that answers /version but not /info in time is reachable with no info", async () => {
  const { engine: e } = engine({ info: never })
  expect(await engineHealth(e, 50).get()).toMatchObject({ reachable: true, info: null })
})

test("an engine's refusal is said as it is", async () => {
  const { engine: e } = engine({
    version: () =>
      Promise.reject(unavailable("the Docker engine is unreachable: connection refused", "engine_unavailable")),
  })
  expect(await engineHealth(e).get()).toEqual({
    reachable: false,
    error: "the Docker engine is unreachable: connection refused",
  })
})
