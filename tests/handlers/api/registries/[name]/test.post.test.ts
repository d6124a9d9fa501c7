// The test action logs in as docker login does and says what the registry answered: Basic, a token
// from the registry's token service, a refusal, a registry that is gone; the result is kept with the
// registry, and no answer holds the password.
import { afterEach, expect, test } from "bun:test"
import { testApp, type TestApp } from "../../../../support/app.ts"
import { registryStandIn, type StandIn } from "../../../../support/registry-stand-in.ts"

let t: TestApp
let registry: StandIn
afterEach(() => {
  registry?.stop()
  t.close()
})

const PASSWORD = "pw-test-5b2e"

async function keep(address: string, password = PASSWORD) {
  const res = await t.call("POST", "/api/registries", {
    name: "r",
    address: `http://${address}`,
    username: "alice",
    password,
  })
  expect(res.status).toBe(201)
}

async function testIt() {
  const res = await t.call("POST", "/api/registries/r/test")
  expect(res.status).toBe(200)
  const text = await res.text()
  expect(text).not.toContain(PASSWORD)
  return JSON.parse(text)
}

test("Basic: logged in; a wrong password is a refusal naming the registry, kept as last_test", async () => {
  t = await testApp()
  registry = registryStandIn({ auth: "basic", users: { alice: PASSWORD } })
  await keep(registry.host)
  expect(await testIt()).toMatchObject({
    ok: true,
    auth: "basic",
    code: null,
    message: "logged in with Basic authentication as user alice",
    pull_quota: null,
  })
  await t.call("PUT", "/api/registries/r", {
    address: `http://${registry.host}`,
    username: "alice",
    password: "nope-x",
  })
  const refused = await testIt()
  expect(refused).toMatchObject({
    ok: false,
    auth: null,
    code: "registry_unauthorized",
    message: `registry ${registry.host} refused the credentials of user alice: UNAUTHORIZED: authentication required`,
  })
  expect((await (await t.call("GET", "/api/registries/r")).json()).last_test).toEqual({
    ok: false,
    time: refused.time,
    auth: null,
    code: "registry_unauthorized",
    message: refused.message,
  })
})

test("bearer: the token service gets the credentials, the registry the token; its quota is reported", async () => {
  t = await testApp()
  registry = registryStandIn({ auth: "bearer", users: { alice: PASSWORD }, remaining: 42 })
  await keep(registry.host)
  expect(await testIt()).toMatchObject({
    ok: true,
    auth: "bearer",
    message: "logged in with a token from its token service as user alice",
    pull_quota: { limit: 100, remaining: 42, window_seconds: 21600 },
  })
  expect(registry.seen.map((s) => s.path)).toEqual(["/v2/", "/token?service=stand-in&account=alice", "/v2/"])
  expect((await (await t.call("GET", "/api/registries/r")).json()).pull_quota).toMatchObject({ remaining: 42 })
})

test("a registry that is gone, or unknown, is said so", async () => {
  t = await testApp()
  registry = registryStandIn({ auth: "none" })
  const host = registry.host
  registry.stop()
  await keep(host)
  expect(await testIt()).toMatchObject({ ok: false, code: "registry_unreachable" })
  expect((await t.call("POST", "/api/registries/nothing/test")).status).toBe(404)
})
