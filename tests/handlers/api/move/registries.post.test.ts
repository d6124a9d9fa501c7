// What a control plane sends a node for a copy: kept here as secrets (origin control_plane), only
// with the cluster token; a registry this server's own admin keeps at the same address stays, one
// sent before is replaced; the answer names them and holds no password.
import { afterEach, expect, test } from "bun:test"
import { join } from "node:path"
import { readOpened } from "#lib/data/sealed.ts"
import { testApp, type TestApp } from "../../../support/app.ts"
import { bearer, withToken } from "../../../support/token.ts"

let t: TestApp
afterEach(() => t.close())

const sent = (name: string, address: string, password: string) => ({
  name,
  address,
  username: "cp",
  password,
  ca: null,
  insecure: false,
})
const secrets = () => JSON.parse(readOpened(join(t.dataDir, "secrets", "registries.json"))!)

test("sent registries are kept as secrets; the node's own stays; a resend replaces the control plane's", async () => {
  t = await testApp()
  withToken(t.dataDir)
  await t.call("POST", "/api/registries", { name: "mine", address: "own.lan", username: "me", password: "own-pw" })
  const body = { registries: [sent("lan", "registry.lan:5000/team", "sent-pw-1"), sent("own", "own.lan", "sent-pw-2")] }
  expect((await t.call("POST", "/api/move/registries", body)).status).toBe(401)
  const res = await t.call("POST", "/api/move/registries", body, bearer)
  expect(res.status).toBe(200)
  const text = await res.text()
  expect(text).not.toContain("sent-pw")
  expect(JSON.parse(text)).toEqual({ stored: ["lan"], kept: ["mine"] })
  expect(secrets()).toEqual({ mine: "own-pw", lan: "sent-pw-1" })
  const again = await t.call(
    "POST",
    "/api/move/registries",
    { registries: [sent("lan", "registry.lan:5000/team", "sent-pw-3")] },
    bearer,
  )
  expect(await again.json()).toEqual({ stored: ["lan"], kept: [] })
  expect(secrets()).toEqual({ mine: "own-pw", lan: "sent-pw-3" })
  const listed = await (await t.call("GET", "/api/registries")).json()
  expect(listed.map((r: { name: string; origin: string }) => [r.name, r.origin])).toEqual([
    ["mine", "api"],
    ["lan", "control_plane"],
  ])
  const bad = await t.call("POST", "/api/move/registries", { registries: [sent("x", "user:pw@evil.io", "p")] }, bearer)
  expect(bad.status).toBe(400)
})
