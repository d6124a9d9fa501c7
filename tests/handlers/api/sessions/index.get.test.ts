// A user's sessions as they see them: device from the User-Agent, address, created, last used, which
// one is theirs; never another user's (an admin sees everyone's), never a cookie or its digest.
import { afterEach, expect, test } from "bun:test"
import { serveApp } from "../../../support/app.ts"
import { authApp, PASSWORD, type AuthTestApp } from "../../../support/auth.ts"

let t: AuthTestApp
let stop = () => {}
afterEach(() => {
  stop()
  t.close()
})

const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"
const SAFARI =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1"

/** Signs in over HTTP (the peer is loopback, a trusted proxy in these tests) with a User-Agent and a forwarded address. */
async function signInWith(url: string, agent: string, user: string, forwarded: string) {
  const res = await fetch(`${url}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json", "user-agent": agent, "x-forwarded-for": forwarded },
    body: JSON.stringify({ user, password: PASSWORD }),
  })
  expect(res.status).toBe(200)
  return res.headers.get("set-cookie")!.split(";")[0]!
}

test("a user lists their own sessions with device, address, creation, last use and which is theirs", async () => {
  t = await authApp({ SVC_AUTH_TRUSTED_PROXIES: "127.0.0.0/8" })
  await t.addUser("ann", "viewer")
  await t.addUser("bob", "viewer")
  const served = serveApp(t)
  stop = served.stop
  const laptop = await signInWith(served.url, FIREFOX, "ann", "10.0.0.7")
  const started = t.clock.now
  t.clock.now += 5000
  const phone = await signInWith(served.url, SAFARI, "ann", "10.0.0.8")
  await signInWith(served.url, "curl/8.5.0", "bob", "10.0.0.9")
  t.clock.now += 120_000
  const res = await t.call("GET", "/api/sessions", undefined, { cookie: laptop })
  expect(res.status).toBe(200)
  const list = await res.json()
  expect(list.map((s: any) => [s.user, s.device, s.address, s.current])).toEqual([
    ["ann", "Firefox on Linux", "10.0.0.7", true],
    ["ann", "Safari on iOS", "10.0.0.8", false],
  ])
  expect(list[0].created).toBe(started)
  expect(list[0].last_used).toBe(t.clock.now)
  expect(list[1].last_used).toBe(started + 5000)
  expect(list[0].id).toMatch(/^[0-9a-f]{16}$/)
  const text = JSON.stringify(list)
  for (const cookie of [laptop, phone]) expect(text).not.toContain(cookie.split("=")[1]!)
})

test("an admin lists everyone's sessions, or one user's", async () => {
  t = await authApp()
  await t.addUser("ann", "viewer")
  await t.addUser("root", "admin")
  await t.signIn("ann")
  const root = await t.signIn("root")
  const all = await (await t.call("GET", "/api/sessions", undefined, { cookie: root })).json()
  expect(all.map((s: any) => s.user).sort()).toEqual(["ann", "root"])
  const ann = await (await t.call("GET", "/api/sessions?user=ann", undefined, { cookie: root })).json()
  expect(ann.map((s: any) => s.user)).toEqual(["ann"])
})

test("an API token's caller sees their sessions too; none is theirs", async () => {
  t = await authApp()
  await t.addUser("ann", "viewer")
  const cookie = await t.signIn("ann")
  const { token } = await t.token(cookie)
  const list = await (await t.call("GET", "/api/sessions", undefined, { authorization: `Bearer ${token}` })).json()
  expect(list.map((s: any) => s.current)).toEqual([false])
})
