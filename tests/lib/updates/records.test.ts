import { afterEach, expect, test } from "bun:test"
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { ComposeRunner } from "#lib/stacks/compose.ts"
import { Stacks } from "#lib/stacks/store.ts"
import { FakeEngine } from "../../support/fake-engine.ts"
import {
  checkSchedule,
  HISTORY_LIMIT,
  intervalSeconds,
  nextDue,
  UpdateRecords,
  type UpdateOutcome,
} from "#lib/updates/records.ts"
import { FakeCompose, twoServices } from "../../support/compose.ts"
import { watchFileReads } from "../../support/file-reads.ts"

let dir: string
afterEach(() => void (dir && rmSync(dir, { recursive: true, force: true })))

test("schedules: intervals and cron expressions (croner); nonsense is a 400", () => {
  expect(intervalSeconds("15m")).toBe(900)
  expect(intervalSeconds("0 4 * * *")).toBeNull()
  const t = Date.parse("2026-03-01T10:00:00Z")
  expect(nextDue("6h", t)).toBe(t + 6 * 3600_000)
  expect(new Date(nextDue("30 4 * * *", t)!).getUTCMinutes()).toBe(30)
  expect(nextDue("*/2 * * * * *", t)! - t).toBeLessThanOrEqual(2000)
  for (const bad of ["0s", "every day", "61 * * * *"]) expect(() => checkSchedule(bad)).toThrow()
})

test("history keeps the newest 50 with the stack; policy defaults, set, and state", async () => {
  dir = mkdtempSync(join(tmpdir(), "hm-upd-"))
  const stacks = new Stacks(dir, {} as ComposeRunner, { engine: new FakeEngine() })
  mkdirSync(stacks.records("shop"), { recursive: true })
  writeFileSync(join(stacks.records("shop"), "state.json"), "{}")
  const records = new UpdateRecords(stacks, () => Date.parse("2026-03-01T10:00:00Z"))
  for (let i = 0; i < 55; i++)
    await records.addHistory("shop", { stack: "shop", verdict: "updated", duration_ms: i } as UpdateOutcome)
  const h = await records.history("shop")
  expect(h).toHaveLength(HISTORY_LIMIT)
  expect(h[0]!.duration_ms).toBe(54)
  expect(await records.policy("shop")).toEqual({ auto_update: "off", schedule: null, watch: null })
  expect(await records.setPolicy("shop", { auto_update: "apply", schedule: " 6h ", watch: 30 })).toEqual({
    auto_update: "apply",
    schedule: "6h",
    watch: 30,
  })
  await records.updateState("shop", (s) => void (s.rejected["r:1"] = "sha256:b"))
  expect((await records.policyFile("shop")).state).toMatchObject({
    set_at: "2026-03-01T10:00:00.000Z",
    rejected: { "r:1": "sha256:b" },
  })
})

test("the newest outcome and the policy are read once, follow every write, and go with their stack", async () => {
  dir = mkdtempSync(join(tmpdir(), "hm-upd-"))
  const engine = new FakeEngine()
  const stacks = new Stacks(dir, new FakeCompose(engine), { engine })
  await stacks.deploy("shop", { compose: twoServices })
  const records = new UpdateRecords(stacks, () => Date.parse("2026-03-01T10:00:00Z"))
  const outcome = (verdict: UpdateOutcome["verdict"]) => ({ stack: "shop", verdict }) as UpdateOutcome
  await records.addHistory("shop", outcome("updated"))
  /** What an UpdateRecords started afresh reads from disk. */
  const onDisk = async () => {
    const fresh = new UpdateRecords(stacks)
    return { last: await fresh.last("shop"), policy: await fresh.policyFile("shop") }
  }
  const reads = watchFileReads([join(dir, "records")])
  try {
    expect(await records.last("shop")).toMatchObject({ verdict: "updated" })
    expect((await records.policyFile("shop")).policy.auto_update).toBe("off")
    reads.reset()
    await records.addHistory("shop", outcome("rolled_back"))
    await records.setPolicy("shop", { auto_update: "notify", schedule: "1h" })
    await records.updateState("shop", (s) => void (s.notified["r:1"] = "sha256:a"))
    const writes = reads.paths().length
    for (let i = 0; i < 3; i++) {
      expect(await records.last("shop")).toMatchObject({ verdict: "rolled_back" })
      expect((await records.policyFile("shop")).state.notified).toEqual({ "r:1": "sha256:a" })
    }
    // The writes read the history they add to; the questions after them read nothing.
    expect(reads.paths().length).toBe(writes)
    expect({ last: await records.last("shop"), policy: await records.policyFile("shop") }).toEqual(await onDisk())
  } finally {
    reads.stop()
  }
  // A stack that goes takes them along; a write for it after writes nothing; a new stack of its name starts bare.
  await stacks.remove("shop")
  await records.addHistory("shop", outcome("updated"))
  await records.updateState("shop", (s) => void (s.last_run = "2026-03-01T10:00:00.000Z"))
  expect(existsSync(stacks.records("shop"))).toBe(false)
  await stacks.deploy("shop", { compose: twoServices })
  expect(await records.last("shop")).toBeUndefined()
  expect((await records.policyFile("shop")).policy.auto_update).toBe("off")
})
