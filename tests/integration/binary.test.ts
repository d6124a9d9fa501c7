// The compiled binary: built by scripts/build.ts, started from another directory, it answers
// /api/health with the build's source revision and serves the UI page.
import { afterAll, beforeAll, expect, test } from "bun:test"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { builtBinary } from "../support/build.ts"
import { engineHost } from "../support/engine.ts"
import { startService, type Service } from "../support/service.ts"

const root = join(import.meta.dir, "../..")
const elsewhere = mkdtempSync(join(tmpdir(), "hm-bin-cwd-"))
let svc: Service

beforeAll(async () => {
  const binary = await builtBinary()
  // The binary runs with a working directory that holds nothing of the project.
  svc = await startService({ DOCKER_HOST: engineHost() }, { cmd: ["sh", "-c", `cd '${elsewhere}' && exec '${binary}'`] })
}, 120_000)
afterAll(async () => {
  await svc?.stop()
  rmSync(elsewhere, { recursive: true, force: true })
})

test("answers /api/health with the sha of the build and a reachable engine", async () => {
  const head = Bun.spawnSync(["git", "rev-parse", "HEAD"], { cwd: root }).stdout.toString().trim()
  const health = await (await fetch(`${svc.url}/api/health`)).json()
  expect(health).toMatchObject({ status: "ok", sha: head, engine: { reachable: true } })
})

test("serves the UI page at / and the API beside it", async () => {
  const page = await fetch(`${svc.url}/`)
  expect(page.status).toBe(200)
  expect(page.headers.get("content-type")).toContain("text/html")
  expect(await page.text()).toContain("<title>Harbormaster</title>")
  const dashboard = await fetch(`${svc.url}/api/dashboard`)
  expect(dashboard.status).toBe(200)
  expect((await dashboard.json()).engine.version).toEqual(expect.any(String))
})
