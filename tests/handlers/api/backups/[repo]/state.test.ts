// The state backup's routes with restic itself on a local folder: a backup of the data directory
// answered with its snapshot and listed; one into a repository not kept is 404. What the snapshot
// holds, and its restore, are proved in tests/integration/state-backup.test.ts.
import { afterEach, expect, test } from "bun:test"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { testApp, type TestApp } from "../../../../support/app.ts"

let t: TestApp
let dir: string
afterEach(() => {
  t.close()
  rmSync(dir, { recursive: true, force: true })
})

test("the state is backed up now and listed, newest first; an unknown repository is 404", async () => {
  t = await testApp()
  dir = mkdtempSync(join(tmpdir(), "hm-state-repo-"))
  const repo = { name: "local", repository: join(dir, "restic"), password: "pw-state-1c9e", init: true }
  expect((await t.call("POST", "/api/backups/repos", repo)).status).toBe(201)

  const first = await t.call("POST", "/api/backups/local/state")
  expect(first.status).toBe(201)
  const { snapshot, bytes } = await first.json()
  // restic's summary names the snapshot by its id or (restic 0.14) the id's first 8 digits.
  expect(snapshot).toMatch(/^[0-9a-f]{8,64}$/)
  expect(bytes).toBeGreaterThan(0)
  const second = (await (await t.call("POST", "/api/backups/local/state")).json()).snapshot
  const listed = await (await t.call("GET", "/api/backups/local/state")).json()
  expect(listed.map((b: { snapshot: string }) => b.snapshot.slice(0, 8))).toEqual(
    [second, snapshot].map((s) => s.slice(0, 8)),
  )
  expect(listed[0]).toMatchObject({ path: t.dataDir })

  const missing = await t.call("POST", "/api/backups/nowhere/state")
  expect([missing.status, (await missing.json()).error.code]).toEqual([404, "repository_not_found"])
}, 60_000)
