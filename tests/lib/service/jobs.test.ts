import { expect, test } from "bun:test"
import { Jobs, type Job } from "#lib/service/jobs.ts"

type Ctx = { seen: string[] }

/** A loop that runs until the signal aborts, as the service's followers do. */
const loop = (name: string): Job<Ctx> => ({
  name,
  start: (ctx, signal) => {
    ctx.seen.push(`start ${name}`)
    return new Promise<void>((r) =>
      signal.addEventListener("abort", () => (ctx.seen.push(`aborted ${name}`), r()), { once: true }),
    )
  },
})

test("jobs start in the list's order, a synchronous one finished before the next, and each says its state", async () => {
  const ctx: Ctx = { seen: [] }
  const jobs = new Jobs<Ctx>(() => {})
  jobs.start(
    [
      { name: "first", start: (c) => void c.seen.push("first ran") },
      loop("a"),
      loop("b"),
      { name: "once", start: async () => {} },
    ],
    ctx,
  )
  expect(ctx.seen).toEqual(["first ran", "start a", "start b"])
  await Bun.sleep(0)
  expect(jobs.states()).toEqual([
    { name: "first", state: "done" },
    { name: "a", state: "running" },
    { name: "b", state: "running" },
    { name: "once", state: "done" },
  ])
  await jobs.stop()
})

test("a job that throws at its start, or fails later, is logged by name and takes none of the others down", async () => {
  const ctx: Ctx = { seen: [] }
  const log: string[] = []
  const jobs = new Jobs<Ctx>((line) => log.push(line))
  const broken: Job<Ctx> = {
    name: "broken",
    start: () => {
      throw new Error("no engine")
    },
  }
  const later: Job<Ctx> = { name: "later", start: async () => Promise.reject(new Error("lost the socket")) }
  jobs.start([broken, loop("a"), later, loop("b")], ctx)
  await Bun.sleep(0)
  expect(ctx.seen).toEqual(["start a", "start b"])
  expect(jobs.states()).toEqual([
    { name: "broken", state: "failed", message: "no engine" },
    { name: "a", state: "running" },
    { name: "later", state: "failed", message: "lost the socket" },
    { name: "b", state: "running" },
  ])
  expect(log).toEqual(["job broken failed: no engine", "job later failed: lost the socket"])
  await jobs.stop()
})

test("stop aborts every job's signal, runs each one's own stop in reverse order, and waits for their work to end", async () => {
  const ctx: Ctx = { seen: [] }
  const log: string[] = []
  const jobs = new Jobs<Ctx>((line) => log.push(line))
  let ended = false
  const slow: Job<Ctx> = {
    name: "slow",
    start: (_, signal) =>
      new Promise<void>((r) =>
        signal.addEventListener("abort", () => setTimeout(() => ((ended = true), r()), 50), { once: true }),
      ),
  }
  const workers: Job<Ctx> = { name: "workers", start: () => {}, stop: (c) => void c.seen.push("workers closed") }
  const failing: Job<Ctx> = {
    name: "failing stop",
    start: () => {},
    stop: (c) => {
      c.seen.push("failing stop")
      throw new Error("already gone")
    },
  }
  jobs.start([workers, loop("a"), slow, failing], ctx)
  await Bun.sleep(0)
  await jobs.stop()
  expect(ended).toBe(true)
  expect(ctx.seen).toEqual(["start a", "aborted a", "failing stop", "workers closed"])
  expect(log).toEqual(["job failing stop did not stop: already gone"])
  expect(jobs.states().map((s) => s.state)).toEqual(["done", "stopped", "stopped", "done"])
})

test("a job that does not end within the grace does not hold the shutdown", async () => {
  const jobs = new Jobs<Ctx>(() => {})
  jobs.start([{ name: "stuck", start: () => new Promise(() => {}) }], { seen: [] })
  await jobs.stop(20) // the test's own timeout fails it when the stop waits for the job
  expect(jobs.states()).toEqual([{ name: "stuck", state: "stopped" }])
})

test("jobs started in two steps keep the list's order; once stopped, none starts", async () => {
  const ctx: Ctx = { seen: [] }
  const jobs = new Jobs<Ctx>(() => {})
  jobs.start([loop("first")], ctx)
  jobs.start([loop("second")], ctx)
  expect(jobs.states().map((s) => s.name)).toEqual(["first", "second"])
  await jobs.stop()
  jobs.start([loop("late")], ctx)
  expect(ctx.seen).not.toContain("start late")
  expect(jobs.states().map((s) => s.name)).toEqual(["first", "second"])
})
