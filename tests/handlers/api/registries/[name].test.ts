// One registry: read, edited (its password stays unless the host changes, when it must be given
// again), removed with its password.
import { afterEach, expect, test } from "bun:test"
import { join } from "node:path"
import { readOpened } from "#lib/data/sealed.ts"
import { testApp, type TestApp } from "../../../support/app.ts"

let t: TestApp
afterEach(() => t.close())

const PASSWORD = "pw-edit-93af"
const kept = () => JSON.parse(readOpened(join(t.dataDir, "secrets", "registries.json"))!)

test("an edit replaces the address, user, CA and flag; the password stays on the same host, is asked again on another", async () => {
  t = await testApp()
  await t.call("POST", "/api/registries", {
    name: "lan",
    address: "registry.lan:5000/team",
    username: "me",
    password: PASSWORD,
  })
  expect(await (await t.call("GET", "/api/registries/lan")).json()).toMatchObject({
    address: "registry.lan:5000/team",
    has_password: true,
  })
  const samehost = await t.call("PUT", "/api/registries/lan", { address: "registry.lan:5000", username: "you" })
  expect(samehost.status).toBe(200)
  expect(await samehost.json()).toMatchObject({
    address: "registry.lan:5000",
    prefix: "",
    username: "you",
    has_password: true,
  })
  expect(kept()).toEqual({ lan: PASSWORD })

  const moved = await t.call("PUT", "/api/registries/lan", { address: "evil.example:5000", username: "you" })
  expect(moved.status).toBe(400)
  expect((await moved.json()).error).toEqual({
    code: "password_required",
    message:
      "registry lan moves from https://registry.lan:5000 to https://evil.example:5000: its password is not sent there; give it again (or null for none)",
  })
  expect(kept()).toEqual({ lan: PASSWORD })
  const plain = await t.call("PUT", "/api/registries/lan", { address: "http://registry.lan:5000", username: "you" })
  expect([plain.status, (await plain.json()).error.code]).toEqual([400, "password_required"])
  const anonymous = await t.call("PUT", "/api/registries/lan", { address: "evil.example:5000", password: null })
  expect(await anonymous.json()).toMatchObject({ host: "evil.example:5000", username: null, has_password: false })
  expect(kept()).toEqual({})

  expect((await t.call("PUT", "/api/registries/none", { address: "a.b" })).status).toBe(404)
  expect((await t.call("GET", "/api/registries/none")).status).toBe(404)
  expect((await t.call("DELETE", "/api/registries/lan")).status).toBe(200)
  expect((await t.call("DELETE", "/api/registries/lan")).status).toBe(404)
  expect(await (await t.call("GET", "/api/registries")).json()).toEqual([])
})

test("removing a registry removes its password", async () => {
  t = await testApp()
  await t.call("POST", "/api/registries", { name: "a", address: "a.lan", username: "u", password: PASSWORD })
  await t.call("POST", "/api/registries", { name: "b", address: "b.lan", username: "u", password: "other-pw" })
  expect(await (await t.call("DELETE", "/api/registries/a")).json()).toEqual({ removed: "a" })
  expect(kept()).toEqual({ b: "other-pw" })
})
