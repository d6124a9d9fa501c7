import { afterEach, expect, test } from "bun:test"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
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
