// The alert routes over the real app: channels added from a URL and from a form, shown masked and
// kept 0600, tested against a stand-in, refused when wrong; rules added, muted, removed; the
// history paged; roles with sign-in on.
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test"
import { statSync } from "node:fs"
import { join } from "node:path"
import { testApp, type TestApp } from "../../../support/app.ts"
import { authApp } from "../../../support/auth.ts"
import type { Role } from "#lib/auth/roles.ts"
import { ALL_SECRETS, channelUrls, startReceivers, TOKENS, type Receivers } from "../../../support/receivers.ts"

let t: TestApp
let r: Receivers
beforeAll(() => (r = startReceivers()))
afterAll(() => r.stop())
afterEach(() => t.close())
const env = () => ({ SVC_ALERT_API_URLS: `discord=${r.url},slack=${r.url},telegram=${r.url},pushover=${r.url}` })

test("channels: added from a URL or a form, listed masked, tested, renamed, removed; credentials stay on disk only", async () => {
  t = await testApp({}, env())
  const urls = channelUrls(r)
  const shown: string[] = []
  const ids: string[] = []
  for (const [name, url] of Object.entries(urls)) {
    const res = await t.call("POST", "/api/alerts/channels", { name, url })
    const text = await res.text()
    expect(res.status).toBe(201)
    shown.push(text)
    ids.push(JSON.parse(text).id)
  }
  const form = await t.call("POST", "/api/alerts/channels", {
    name: "form telegram",
    kind: "telegram",
    fields: { token: TOKENS.telegram, chats: "@ops" },
  })
  expect(form.status).toBe(201)
  const list = await (await t.call("GET", "/api/alerts/channels")).text()
  shown.push(list, JSON.stringify(await form.json()))
  for (const s of ALL_SECRETS) for (const text of shown) expect(text).not.toContain(s)
  expect(JSON.parse(list).map((c: { kind: string }) => c.kind)).toEqual([
    "webhook",
    "ntfy",
    "gotify",
    "discord",
    "slack",
    "slack",
    "telegram",
    "pushover",
    "matrix",
    "telegram",
  ])
  expect(statSync(join(t.dataDir, "alerts", "channels.json")).mode & 0o777).toBe(0o600)

  for (const id of ids) {
    const tested = await (await t.call("POST", `/api/alerts/channels/${id}/test`)).json()
    expect(tested).toMatchObject({ ok: true, error: null })
  }
  expect(new Set(r.received.map((x) => x.kind))).toEqual(
    new Set([
      "webhook",
      "ntfy",
      "gotify",
      "discord",
      "slack",
      "slack-bot",
      "telegram",
      "pushover",
      "matrix-login",
      "matrix",
    ]),
  )
  const renamed = await t.call("PUT", `/api/alerts/channels/${ids[0]}`, { name: "renamed" })
  expect((await renamed.json()).name).toBe("renamed")
  expect((await t.call("DELETE", `/api/alerts/channels/${ids[0]}`)).status).toBe(200)
  expect((await t.call("GET", "/api/alerts/channels")).status).toBe(200)
})

test("a test that fails answers the service's words, without the credential", async () => {
  t = await testApp({}, env())
  const url = channelUrls(r).telegram.replace("@ops,-1001234", "@nochat")
  const { id } = await (await t.call("POST", "/api/alerts/channels", { name: "tg", url })).json()
  const res = await (await t.call("POST", `/api/alerts/channels/${id}/test`)).json()
  expect(res.ok).toBe(false)
  expect(res.error).toBe("Telegram (chat @nochat) answered 400: Bad Request: chat not found")
  const history = await (await t.call("GET", "/api/alerts/history")).json()
  expect(history.entries[0]).toMatchObject({ state: "test", result: "failed", channel_name: "tg" })
})

test.each([
  [{ name: "x", url: "nonsense" }, 400, "invalid_channel_url"],
  [{ name: "x", url: "discord://@1" }, 400, "invalid_channel_url"],
  [{ name: "", url: "ntfy://ntfy.sh/t" }, 400, "invalid_name"],
  [{ name: "x" }, 400, "invalid_channel"],
  [{ name: "x", kind: "smtp", fields: { host: "h" } }, 400, "invalid_channel_form"],
  [{ name: "x", kind: "fax" }, 400, undefined],
])("a wrong channel is refused: %j", async (body, status, code) => {
  t = await testApp()
  const res = await t.call("POST", "/api/alerts/channels", body)
  expect(res.status).toBe(status)
  if (code) expect((await res.json()).error.code).toBe(code)
})

test("rules: added, listed with their words, muted by an operator, refused when wrong, removed", async () => {
  t = await testApp()
  const { id: ch } = await (
    await t.call("POST", "/api/alerts/channels", { name: "n", url: "ntfy://ntfy.example/t0pic" })
  ).json()
  const add = await t.call("POST", "/api/alerts/rules", {
    name: "disk",
    kind: "disk",
    target: "data",
    above: 90,
    minutes: 5,
    channels: [ch],
  })
  expect(add.status).toBe(201)
  const rule = await add.json()
  expect(rule).toMatchObject({
    description: "the data directory's disk above 90% for 5 minutes",
    muted: false,
    active: 0,
    recovery: true,
  })
  const muted = await (await t.call("POST", `/api/alerts/rules/${rule.id}/mute`, { minutes: 10 })).json()
  expect(muted.muted).toBe(true)
  expect((await t.call("POST", "/api/alerts/rules", { name: "y", kind: "cpu", channels: [ch] })).status).toBe(400)
  expect(
    (await t.call("POST", "/api/alerts/rules", { name: "z", kind: "event", events: ["nope"], channels: [] })).status,
  ).toBe(400)
  expect(
    (await t.call("POST", "/api/alerts/rules", { name: "w", kind: "node_offline", channels: ["ch_000000000000"] }))
      .status,
  ).toBe(400)
  expect((await t.call("DELETE", `/api/alerts/channels/${ch}`)).status).toBe(409)
  expect((await t.call("DELETE", `/api/alerts/rules/${rule.id}`)).status).toBe(200)
  expect(await (await t.call("GET", "/api/alerts/rules")).json()).toEqual([])
  expect((await t.call("GET", "/api/alerts/kinds")).status).toBe(200)
  expect(await (await t.call("GET", "/api/alerts/active")).json()).toEqual([])
})

test("with sign-in on: viewers read, operators mute, admins manage", async () => {
  const a = await authApp()
  t = a
  const cookie = async (role: Role) => (await a.addUser(role, role), await a.signIn(role))
  const [viewer, operator, admin] = [await cookie("viewer"), await cookie("operator"), await cookie("admin")]
  const as = (who: string, method: string, path: string, body?: unknown) =>
    t.call(method, path, body, { cookie: who }).then((res) => res.status)
  const add = await t.call(
    "POST",
    "/api/alerts/channels",
    { name: "n", url: "ntfy://ntfy.example/t0pic" },
    { cookie: admin },
  )
  const ch = (await add.json()).id
  expect(await as(operator, "POST", "/api/alerts/channels", { name: "m", url: "ntfy://ntfy.example/x" })).toBe(403)
  const rule = await (
    await t.call("POST", "/api/alerts/rules", { name: "r", kind: "node_offline", channels: [ch] }, { cookie: admin })
  ).json()
  expect(await as(viewer, "GET", "/api/alerts/history")).toBe(200)
  expect(await as(viewer, "GET", "/api/alerts/rules")).toBe(200)
  expect(await as(viewer, "POST", `/api/alerts/rules/${rule.id}/mute`, { minutes: 5 })).toBe(403)
  expect(await as(operator, "POST", `/api/alerts/rules/${rule.id}/mute`, { minutes: 5 })).toBe(200)
  expect(await as(operator, "DELETE", `/api/alerts/rules/${rule.id}`)).toBe(403)
  expect(await as(operator, "POST", `/api/alerts/channels/${ch}/test`)).toBe(403)
  expect(await as(admin, "DELETE", `/api/alerts/rules/${rule.id}`)).toBe(200)
})
