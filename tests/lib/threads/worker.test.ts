// The one worker thread: jobs in order, one at a time; a job past its deadline stops the thread and the
// next job gets a new one; a worker's error is the job's; past the bound of jobs waiting, refused.
import { afterAll, expect, test } from "bun:test"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { WorkerThread } from "#lib/threads/worker.ts"

const dir = mkdtempSync(join(tmpdir(), "hm-thread-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const module = join(dir, "worker.ts")
writeFileSync(
  module,
  `self.onmessage = ({ data }) => {
  if (data.spin) for (;;) {}
  if (data.fail) return self.postMessage({ id: data.id, error: "no " + data.n })
  self.postMessage({ id: data.id, value: data.n * 2 })
}
`,
)

test("jobs are answered in order; a worker's error is the job's, and the thread goes on", async () => {
  const thread = new WorkerThread<{ n: number; fail?: boolean }, number>(new URL(`file://${module}`))
  const answers = await Promise.allSettled([
    thread.run({ n: 1 }, 5000),
    thread.run({ n: 2, fail: true }, 5000),
    thread.run({ n: 3 }, 5000),
  ])
  expect(answers.map((a) => (a.status === "fulfilled" ? a.value : (a.reason as Error).message))).toEqual([2, "no 2", 6])
})

test("a job past its deadline is refused as such; the thread is stopped and a new one takes the next", async () => {
  const thread = new WorkerThread<{ n: number; spin?: boolean }, number>(new URL(`file://${module}`))
  const spun = await thread.run({ n: 0, spin: true }, 200).catch((e) => e)
  expect(spun).toMatchObject({ reason: "deadline" })
  expect(await thread.run({ n: 21 }, 5000)).toBe(42)
})

test("past the bound of jobs waiting, a job is refused at once", async () => {
  const thread = new WorkerThread<{ n: number; spin?: boolean }, number>(new URL(`file://${module}`), 1)
  const running = thread.run({ n: 0, spin: true }, 300).catch((e) => e)
  const waiting = thread.run({ n: 1 }, 5000)
  expect(await thread.run({ n: 2 }, 5000).catch((e) => e)).toMatchObject({ reason: "busy" })
  expect(await running).toMatchObject({ reason: "deadline" })
  expect(await waiting).toBe(2)
})
