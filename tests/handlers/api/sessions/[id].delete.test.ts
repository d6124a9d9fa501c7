// Ending a session from the list: the user's own (any of them), anyone's for an admin, never another
// user's for anyone else; the ended cookie opens nothing and what it held open (an event stream)
// ends, audited.
import { afterEach, expect, test } from "bun:test"
import { serveApp } from "../../../support/app.ts"
import { authApp, type AuthTestApp } from "../../../support/auth.ts"

let t: AuthTestApp
let stop = () => {}
afterEach(() => {
  stop()
  t.close()
})

const list = async (cookie: string, query = "") =>
  (await (await t.call("GET", `/api/sessions${query}`, undefined, { cookie })).json()) as {
    id: string
    user: string
    current: boolean
  }[]

test("a user ends another of their sessions: its cookie is refused from the next request, their own stays", async () => {
  t = await authApp()
  await t.addUser("ann", "viewer")
  const here = await t.signIn("ann")
  const there = await t.signIn("ann")
  const other = (await list(here)).find((s) => !s.current)!
  const res = await t.call("DELETE", `/api/sessions/${other.id}`, undefined, { cookie: here })
  expect(res.status).toBe(200)
  expect(await res.json()).toEqual({ ended: other.id })
  expect((await t.call("GET", "/api/containers", undefined, { cookie: there })).status).toBe(401)
  expect((await t.call("GET", "/api/containers", undefined, { cookie: here })).status).toBe(200)
  expect((await list(here)).length).toBe(1)
})

test("another user's session is not found for a viewer; an admin ends it", async () => {
  t = await authApp()
  await t.addUser("ann", "viewer")
  await t.addUser("bob", "operator")
  await t.addUser("root", "admin")
  const ann = await t.signIn("ann")
  const bob = await t.signIn("bob")
  const root = await t.signIn("root")
  const bobs = (await list(root, "?user=bob"))[0]!
  const refused = await t.call("DELETE", `/api/sessions/${bobs.id}`, undefined, { cookie: ann })
  expect(refused.status).toBe(404)
  expect((await refused.json()).error.code).toBe("session_not_found")
  expect((await t.call("GET", "/api/containers", undefined, { cookie: bob })).status).toBe(200)
  expect((await t.call("DELETE", `/api/sessions/${bobs.id}`, undefined, { cookie: root })).status).toBe(200)
  expect((await t.call("GET", "/api/containers", undefined, { cookie: bob })).status).toBe(401)
  const { entries } = await (await t.call("GET", "/api/audit?action=session.end", undefined, { cookie: root })).json()
  expect(entries.map((e: any) => [e.user, e.status, e.target])).toEqual([
    ["root", 200, { id: bobs.id }],
    ["ann", 404, { id: bobs.id }],
  ])
})

test("a malformed id is 400; an unknown one 404", async () => {
  t = await authApp()
  await t.addUser("ann", "viewer")
  const cookie = await t.signIn("ann")
  expect((await t.call("DELETE", "/api/sessions/nothing", undefined, { cookie })).status).toBe(400)
  expect((await t.call("DELETE", `/api/sessions/${"0".repeat(16)}`, undefined, { cookie })).status).toBe(404)
})

test("an ended session's event stream ends at once", async () => {
  t = await authApp()
  await t.addUser("ann", "viewer")
  const s = serveApp(t)
  stop = s.stop
  const here = await t.signIn("ann")
  const there = await t.signIn("ann")
  const res = await fetch(`${s.url}/api/events`, { headers: { cookie: there } })
  expect(res.status).toBe(200)
  const reader = res.body!.getReader()
  const ended = (async () => {
    for (;;) if ((await reader.read()).done) return "ended"
  })()
  const other = (await list(here)).find((x) => !x.current)!
  await t.call("DELETE", `/api/sessions/${other.id}`, undefined, { cookie: here })
  expect(await Promise.race([ended, Bun.sleep(5000).then(() => "open")])).toBe("ended")
})
