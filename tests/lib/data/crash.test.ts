import { afterAll, expect, test } from "bun:test"
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const dir = mkdtempSync(join(tmpdir(), "hm-crash-points-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** A process that writes a.json, opens an intent, writes b, c and d, passes the point `named` and ends the intent; killed where HM_CRASH_AT says. */
async function run(name: string, crashAt: string) {
  const data = join(dir, name)
  const script = `import { crashPoint } from "#lib/data/crash.ts"
import { writeJson } from "#lib/data/datadir.ts"
import { beginIntent, endIntent } from "#lib/data/intents.ts"
const data = ${JSON.stringify(data)}
writeJson(data + "/a.json", 1)
const intent = beginIntent(data, "test", "s", {})
for (const f of ["b", "c", "d"]) writeJson(data + "/" + f + ".json", 1)
crashPoint("named")
endIntent(data, intent)`
  const proc = Bun.spawn(["bun", "-e", script], {
    cwd: join(import.meta.dir, "../../.."),
    env: { ...process.env, HM_CRASH_AT: crashAt, SVC_SECRET_KEY: "00".repeat(32) },
    stderr: "pipe",
  })
  await proc.exited
  const intents = existsSync(join(data, "intents")) ? readdirSync(join(data, "intents")).length : 0
  const files = readdirSync(data)
    .filter((f) => f.endsWith(".json"))
    .sort()
  return { killed: proc.signalCode, files, intents }
}

test("step@k kills after the k-th durable step of an open intent (steps before it do not count)", async () => {
  // Step 1 is the intents' folder made, 2 the intent's file, then b, c, d, and its removal (6).
  expect(await run("first", "step@1")).toEqual({ killed: "SIGKILL", files: ["a.json"], intents: 0 })
  expect(await run("second", "step@2")).toEqual({ killed: "SIGKILL", files: ["a.json"], intents: 1 })
  expect(await run("fourth", "step@4")).toEqual({
    killed: "SIGKILL",
    files: ["a.json", "b.json", "c.json"],
    intents: 1,
  })
  expect(await run("last", "step@6")).toEqual({
    killed: "SIGKILL",
    files: ["a.json", "b.json", "c.json", "d.json"],
    intents: 0,
  })
  expect(await run("past", "step@7")).toEqual({
    killed: null,
    files: ["a.json", "b.json", "c.json", "d.json"],
    intents: 0,
  })
})

test("a named point kills the first time it is passed, or the k-th; without HM_CRASH_AT nothing is killed", async () => {
  expect(await run("named", "other,named")).toMatchObject({ killed: "SIGKILL", intents: 1 })
  expect(await run("named-twice", "named@2")).toMatchObject({ killed: null, intents: 0 })
  expect(await run("none", "")).toMatchObject({ killed: null, intents: 0 })
})
