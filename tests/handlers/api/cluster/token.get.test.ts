import { afterEach, expect, test } from "bun:test"
import { existsSync } from "node:fs"
import { clusterFile } from "#lib/cluster/bearer.ts"
import { testApp, type TestApp } from "../../../support/app.ts"

let t: TestApp
afterEach(() => t.close())

test("404 without a token, and reading never creates one", async () => {
  t = await testApp()
  for (let i = 0; i < 2; i++) {
    const res = await t.call("GET", "/api/cluster/token")
    expect(res.status).toBe(404)
    expect((await res.json()).error.code).toBe("no_token")
  }
  expect(existsSync(clusterFile(t.dataDir))).toBe(false)
})

test("returns the minted token, or the one a member joined with", async () => {
  t = await testApp()
  const token = t.ctx.cluster.mint()
  expect(await (await t.call("GET", "/api/cluster/token")).json()).toEqual({ token })
  t.ctx.cluster.save({ role: "member", token: "joined", control_plane_url: "http://cp:8080" })
  expect(await (await t.call("GET", "/api/cluster/token")).json()).toEqual({ token: "joined" })
})
