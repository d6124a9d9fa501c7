import { expect, test } from "bun:test"
import { HistoryStore, Ring, SERIES, SLOT_BYTES, slotsFor, WINDOW_MS } from "#lib/stats/history.ts"

const slot = (n: number) => ({ cpu: n, mem: n * 1000, rx: null, tx: n, blkRead: 0, blkWrite: 0, pids: 1 })

test("an hour at 5 s is 720 slots of 36 bytes: 25,920 bytes per container", () => {
  expect(SLOT_BYTES).toBe(8 + 4 * SERIES.length)
  expect(SLOT_BYTES).toBe(36)
  expect(slotsFor(5)).toBe(720)
  expect(new Ring(slotsFor(5)).bytes).toBe(25_920)
  expect(slotsFor(1)).toBe(3600)
})

test("the ring wraps: it keeps the newest `capacity` slots, oldest first", () => {
  const r = new Ring(4)
  for (let i = 1; i <= 6; i++) r.push(i * 1000, slot(i))
  expect(r.length).toBe(4)
  expect(r.lastTime).toBe(6000)
  const cols = r.read()
  expect(cols.time).toEqual([3000, 4000, 5000, 6000])
  expect(cols.cpu).toEqual([3, 4, 5, 6])
  expect(cols.mem).toEqual([3000, 4000, 5000, 6000])
  // A missing rate is kept as NaN and read back as null.
  expect(cols.rx).toEqual([null, null, null, null])
  expect(r.read(4000).time).toEqual([5000, 6000])
})

test("points averages runs of slots, aligned on the newest", () => {
  const r = new Ring(10)
  for (let i = 1; i <= 7; i++) r.push(i, slot(i))
  const cols = r.read(0, 3)
  // 7 slots in groups of 3 from the newest: [1], [2,3,4], [5,6,7]
  expect(cols.time).toEqual([1, 4, 7])
  expect(cols.cpu).toEqual([1, 3, 6])
  expect(r.read(0, 100).time.length).toBe(7)
})

test("the store stays within its budget: past it, a stale ring is replaced, a live one never", () => {
  const store = new HistoryStore(10, 5000, 10 * SLOT_BYTES * 3)
  expect(store.maxRings).toBe(3)
  store.push("c:a", 1000, slot(1))
  store.push("c:b", 50_000, slot(1))
  store.push("c:c", 50_000, slot(1))
  // "a" last wrote long ago (more than two intervals): it makes room for "d".
  store.push("c:d", 50_000, slot(1))
  expect(store.get("c:a")).toBeUndefined()
  expect(store.get("c:d")?.length).toBe(1)
  // Every ring is live now: "e" gets none, and the budget holds.
  store.push("c:e", 52_000, slot(1))
  expect(store.get("c:e")).toBeUndefined()
  expect(store.refused).toBe(1)
  expect(store.size).toBe(3)
  expect(store.bytes).toBe(3 * 10 * SLOT_BYTES)
})

test("rings whose newest slot left the hour are dropped", () => {
  const store = new HistoryStore(10, 5000)
  store.push("c:old", 1000, slot(1))
  store.push("c:new", WINDOW_MS + 2000, slot(1))
  store.expire(WINDOW_MS + 2000)
  expect(store.get("c:old")).toBeUndefined()
  expect(store.get("c:new")).toBeDefined()
})
