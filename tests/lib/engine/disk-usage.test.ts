import { expect, test } from "bun:test"
import { DiskUsageCache } from "#lib/engine/disk-usage.ts"
import type { Engine } from "#lib/engine/client.ts"

function countingEngine() {
  const engine = {
    calls: 0,
    fail: false,
    df: async () => {
      engine.calls++
      await Bun.sleep(5)
      if (engine.fail) throw new Error("a disk usage operation is already running")
      return { LayersSize: engine.calls }
    },
  }
  return engine
}

test("callers at the same moment share one count", async () => {
  const engine = countingEngine()
  const cache = new DiskUsageCache(engine as unknown as Engine, 30_000)
  const answers = await Promise.all(Array.from({ length: 20 }, () => cache.get()))
  expect(engine.calls).toBe(1)
  expect(answers.every((a) => a.LayersSize === 1)).toBe(true)
})

test("the answer serves until it is ttl old, then the engine counts again", async () => {
  let now = 1_000
  const engine = countingEngine()
  const cache = new DiskUsageCache(engine as unknown as Engine, 30_000, () => now)
  await cache.get()
  now += 29_999
  expect((await cache.get()).LayersSize).toBe(1)
  now += 1
  expect((await cache.get()).LayersSize).toBe(2)
  expect(engine.calls).toBe(2)
})

test("a failed count is not kept: the next caller asks again", async () => {
  const engine = countingEngine()
  const cache = new DiskUsageCache(engine as unknown as Engine, 30_000)
  engine.fail = true
  await expect(cache.get()).rejects.toThrow("already running")
  engine.fail = false
  expect((await cache.get()).LayersSize).toBe(2)
})
