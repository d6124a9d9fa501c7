// Adding and listing registries: the answer never holds the password, which lies only in the secret
// store (0600 in a 0700 folder); what may not be kept is a 400 naming why, a second registry at the
// same address a 409; an admin adds, an operator lists, a viewer neither.
import { afterEach, expect, test } from "bun:test"
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { readOpened } from "#lib/data/sealed.ts"
import { testApp, type TestApp } from "../../../support/app.ts"
import { authApp, type AuthTestApp } from "../../../support/auth.ts"

let t: TestApp | AuthTestApp
afterEach(() => t.close())

const PASSWORD = "pw-registry-7c1d-secret"

/** Every file of the data directory outside the secret store, with its text. */
function outsideSecrets(dataDir: string): [string, string][] {
  return (readdirSync(dataDir, { recursive: true }) as string[])
    .filter((p) => !p.startsWith("secrets") && statSync(join(dataDir, p)).isFile())
    .map((p) => [p, readFileSync(join(dataDir, p), "utf8")])
}

test("a registry is kept with its password in the secret store alone, listed without it", async () => {
  t = await testApp()
  const added = await t.call("POST", "/api/registries", {
    name: "ghcr-mine",
    address: "https://ghcr.io/My-Org/",
    username: "me",
    password: PASSWORD,
  })
  expect(added.status).toBe(201)
  const view = await added.json()
  expect(view).toMatchObject({
    name: "ghcr-mine",
    address: "ghcr.io/my-org",
    host: "ghcr.io",
    prefix: "my-org",
    username: "me",
    has_password: true,
    insecure: false,
    ca: null,
    origin: "api",
    last_test: null,
    pull_quota: null,
  })
  const listed = await (await t.call("GET", "/api/registries")).text()
  expect(JSON.parse(listed)).toEqual([view])
  expect(listed).not.toContain(PASSWORD)
  for (const [path, text] of outsideSecrets(t.dataDir)) expect([path, text.includes(PASSWORD)]).toEqual([path, false])
  const store = join(t.dataDir, "secrets")
  expect(statSync(store).mode & 0o777).toBe(0o700)
  expect(statSync(join(store, "registries.json")).mode & 0o777).toBe(0o600)
  expect(JSON.parse(readOpened(join(store, "registries.json"))!)).toEqual({ "ghcr-mine": PASSWORD })
})

test("what may not be kept is a 400 naming why; a taken name or address a 409", async () => {
  t = await testApp()
  const add = async (body: Record<string, unknown>) => {
    const res = await t.call("POST", "/api/registries", { name: "r", ...body })
    const answer = await res.text()
    expect(answer).not.toContain(PASSWORD)
    return [res.status, JSON.parse(answer).error?.code]
  }
  expect(await add({ address: `https://me:${PASSWORD}@ghcr.io/x` })).toEqual([400, "invalid_address"])
  expect(await add({ address: "ftp://registry.lan" })).toEqual([400, "invalid_address"])
  expect(await add({ address: "registry" })).toEqual([400, "invalid_address"])
  expect(await add({ address: "registry.lan/Bad Path" })).toEqual([400, "invalid_address"])
  expect(await add({ address: "registry.lan:99999" })).toEqual([400, "invalid_address"])
  expect(await add({ address: "http://registry.lan:5000" })).toEqual([201, undefined])
  expect((await t.call("DELETE", "/api/registries/r")).status).toBe(200)
  expect(await add({ address: "http://registry.lan:5000", insecure: false })).toEqual([400, "insecure_not_said"])
  expect(await add({ address: "https://registry.lan", insecure: true })).toEqual([400, "invalid_address"])
  expect(await add({ address: "registry.lan", password: PASSWORD })).toEqual([400, "username_required"])
  expect(await add({ address: "registry.lan", username: "me" })).toEqual([400, "password_required"])
  expect(await add({ address: "registry.lan", username: "m:e", password: PASSWORD })).toEqual([400, "invalid_username"])
  expect(
    await add({ address: "registry.lan", ca: "-----BEGIN PRIVATE KEY-----\nxx\n-----END PRIVATE KEY-----" }),
  ).toEqual([400, "invalid_ca"])
  expect(
    await add({
      address: "registry.lan",
      ca: "-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----",
    }),
  ).toEqual([400, "invalid_ca"])
  expect(await add({ name: "Bad_Name", address: "registry.lan" })).toEqual([400, "invalid_request"])
  expect(await add({ address: "registry.lan/team", username: "me", password: PASSWORD })).toEqual([201, undefined])
  expect(await add({ address: "registry.lan/other" })).toEqual([409, "registry_exists"])
  expect(await add({ name: "r2", address: "https://registry.lan/team/" })).toEqual([409, "registry_exists"])
  expect(await add({ name: "r2", address: "registry.lan/team/sub" })).toEqual([201, undefined])
})

test("an admin adds; an operator lists but may not add; a viewer neither", async () => {
  const a = await authApp()
  t = a
  for (const role of ["admin", "operator", "viewer"] as const) await a.addUser(role, role)
  const body = { name: "hub", address: "docker.io", username: "me", password: PASSWORD }
  const as = async (role: string, method: string, payload?: unknown) =>
    (await a.call(method, "/api/registries", payload, { cookie: await a.signIn(role) })).status
  expect(await as("viewer", "GET")).toBe(403)
  expect(await as("operator", "POST", body)).toBe(403)
  expect(await as("admin", "POST", body)).toBe(201)
  expect(await as("operator", "GET")).toBe(200)
  const audit = await a.call("GET", "/api/audit", undefined, { cookie: await a.signIn("admin") })
  expect(await audit.text()).not.toContain(PASSWORD)
})
