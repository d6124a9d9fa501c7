// The repositories' routes with restic itself on a local folder: added (created with init), kept
// 0600, listed without their password, refused with a wrong one, a bad schedule or a taken name,
// edited, removed.
import { afterEach, expect, test } from "bun:test"
import { statSync } from "node:fs"
import { join } from "node:path"
import { testApp, type TestApp } from "../../../support/app.ts"
import { readOpened } from "#lib/data/sealed.ts"

let t: TestApp
afterEach(() => t.close())

const PASSWORD = "pw-handler-5e1d"

test("a repository is added, listed without its password and removed", async () => {
  t = await testApp()
  const repository = join(t.dataDir, "restic")
  const added = await t.call("POST", "/api/backups/repos", {
    name: "local",
    repository,
    password: PASSWORD,
    init: true,
    schedule: "0 3 * * *",
    keep: { daily: 7 },
  })
  expect(added.status).toBe(201)
  const listed = await (await t.call("GET", "/api/backups/repos")).text()
  expect(JSON.parse(listed)).toEqual([
    { name: "local", repository, schedule: "0 3 * * *", keep: { daily: 7 }, last_check: null },
  ])
  expect(listed).not.toContain(PASSWORD)
  expect(statSync(join(t.dataDir, "backups", "repos.json")).mode & 0o777).toBe(0o600)

  const taken = await t.call("POST", "/api/backups/repos", { name: "local", repository, password: PASSWORD })
  expect([taken.status, (await taken.json()).error.code]).toEqual([409, "repository_exists"])
  const wrong = await t.call("POST", "/api/backups/repos", { name: "other", repository, password: "nope" })
  expect([wrong.status, (await wrong.json()).error.code]).toEqual([409, "repository_password"])
  const badSchedule = await t.call("POST", "/api/backups/repos", {
    name: "other",
    repository,
    password: PASSWORD,
    schedule: "every day",
  })
  expect(badSchedule.status).toBe(400)

  // An edit replaces the settings; the repository string and the password stay.
  const edited = await t.call("PUT", "/api/backups/repos/local", {
    schedule: "6h",
    keep: { last: 3, weekly: 4 },
    check: "1d",
    stacks: ["shop"],
  })
  expect(edited.status).toBe(200)
  expect(await edited.json()).toEqual({
    name: "local",
    repository,
    schedule: "6h",
    keep: { last: 3, weekly: 4 },
    check: "1d",
    stacks: ["shop"],
    last_check: null,
  })
  expect((await t.call("PUT", "/api/backups/repos/local", { schedule: "whenever" })).status).toBe(400)
  expect((await t.call("PUT", "/api/backups/repos/nowhere", {})).status).toBe(404)
  expect(JSON.parse(readOpened(join(t.dataDir, "backups", "repos.json"))!)[0]).toMatchObject({
    password: PASSWORD,
    schedule: "6h",
  })

  expect((await t.call("DELETE", "/api/backups/repos/local")).status).toBe(200)
  expect(await (await t.call("GET", "/api/backups/repos")).json()).toEqual([])
  expect((await t.call("DELETE", "/api/backups/repos/local")).status).toBe(404)
}, 30_000)

test("a backup into an unknown repository is 404 repository_not_found", async () => {
  t = await testApp()
  const unknownRepo = await t.call("POST", "/api/backups/nowhere/shop/run")
  expect([unknownRepo.status, (await unknownRepo.json()).error.code]).toEqual([404, "repository_not_found"])
})
