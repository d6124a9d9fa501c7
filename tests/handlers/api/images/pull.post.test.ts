// The image pull route: the pull carries the X-Registry-Auth of the reference's kept registry (the
// longest path prefix of its host) and none for another; Docker Hub's quota is read first and a pull
// with none left is a 429 naming the registry before the engine is asked.
import { afterEach, expect, test } from "bun:test"
import { Registries } from "#lib/registries/registries.ts"
import { testApp, type TestApp } from "../../../support/app.ts"
import { registryStandIn, type StandIn } from "../../../support/registry-stand-in.ts"

let t: TestApp
let hub: StandIn | undefined
afterEach(() => {
  hub?.stop()
  hub = undefined
  t.close()
})

const decode = (header: unknown) =>
  JSON.parse(Buffer.from(String(header).replaceAll("-", "+").replaceAll("_", "/"), "base64").toString())

async function app() {
  t = await testApp()
  t.engine.registryAuth = (ref) => t.ctx.registries.engineAuth(ref)
  for (const [name, address, password] of [
    ["team", "registry.lan:5000/team", "team-pw"],
    ["team-app", "registry.lan:5000/team/app", "app-pw"],
  ])
    expect((await t.call("POST", "/api/registries", { name, address, username: name, password })).status).toBe(201)
}

const pulls = () => t.engine.calls.filter((c) => c.op === "pullImage").map((c) => c.args)

test("a pull carries its kept registry's credentials, the longest prefix winning; another image goes anonymous", async () => {
  await app()
  const res = await t.call("POST", "/api/images/pull", { ref: "registry.lan:5000/team/app/web:1" })
  expect(res.status).toBe(200)
  const answer = await res.json()
  expect(answer).toMatchObject({
    ref: "registry.lan:5000/team/app/web:1",
    registry: "registry.lan:5000",
    credentials: "team-app",
    pull_quota: null,
  })
  expect(answer.id).toStartWith("sha256:")
  expect(JSON.stringify(answer)).not.toContain("app-pw")
  await t.call("POST", "/api/images/pull", { ref: "registry.lan:5000/team/db:2" })
  await t.call("POST", "/api/images/pull", { ref: "registry.lan:5000/teammate/x:1" })
  const [web, db, other] = pulls()
  expect(decode(web![1])).toEqual({ username: "team-app", password: "app-pw", serveraddress: "registry.lan:5000" })
  expect(decode(db![1])).toEqual({ username: "team", password: "team-pw", serveraddress: "registry.lan:5000" })
  expect(other).toEqual(["registry.lan:5000/teammate/x:1"])
  const invalid = await t.call("POST", "/api/images/pull", { ref: "Not A/Reference" })
  expect([invalid.status, (await invalid.json()).error.code]).toEqual([400, "invalid_reference"])
})

test("Docker Hub: its quota is shown with the pull; with none left the pull is refused before the engine is asked", async () => {
  t = await testApp()
  t.engine.registryAuth = (ref) => t.ctx.registries.engineAuth(ref)
  hub = registryStandIn({ auth: "bearer", anonymous: true, remaining: 2 })
  const host = hub.host
  // Docker Hub's registry answers on registry-1.docker.io: here, the stand-in on loopback.
  const toStandIn: typeof fetch = ((url: string | URL, init?: RequestInit) =>
    fetch(String(url).replace("https://registry-1.docker.io", `http://${host}`), init)) as typeof fetch
  t.ctx.registries = new Registries(t.dataDir, { fetch: toStandIn })
  const res = await t.call("POST", "/api/images/pull", { ref: "library/busybox:1.36" })
  expect(await res.json()).toMatchObject({
    registry: "docker.io",
    credentials: null,
    pull_quota: { limit: 100, remaining: 2, window_seconds: 21600 },
  })
  expect(hub.seen.map((s) => `${s.method} ${s.path}`)).toContain("HEAD /v2/library/busybox/manifests/1.36")
  hub.remaining = 0
  const refused = await t.call("POST", "/api/images/pull", { ref: "busybox:1.37" })
  expect(refused.status).toBe(429)
  expect(refused.headers.get("retry-after")).toBeTruthy()
  expect((await refused.json()).error.code).toBe("registry_rate_limited")
  expect(pulls()).toEqual([["library/busybox:1.36"]])

  const quota = await t.call("GET", "/api/images/pull-quota")
  expect(quota.status).toBe(429)
  hub.remaining = 7
  expect(await (await t.call("GET", "/api/images/pull-quota")).json()).toMatchObject({
    registry: null,
    quota: { remaining: 7, limit: 100 },
  })
})
