// What a credential holds open ends with it: an event stream and a shell over a served app (fake
// engine, the app's clock moved by the test), ended by a token that expires, a session left unused
// past its idle time, a session signed out, a role lowered (the shell only: a viewer still reads
// events), and each end is one audit entry with its reason.
import { afterEach, expect, test } from "bun:test"
import { serveApp } from "../../support/app.ts"
import { authApp, type AuthTestApp } from "../../support/auth.ts"

let t: AuthTestApp
let stop = () => {}
afterEach(() => {
  stop()
  t.close()
})

/** An event stream opened with `headers`; `ended` settles when the service ends it. */
async function events(url: string, headers: Record<string, string>) {
  const res = await fetch(`${url}/api/events`, { headers })
  expect(res.status).toBe(200)
  const reader = res.body!.getReader()
  const ended = (async () => {
    for (;;) if ((await reader.read()).done) return "ended" as const
  })()
  return { ended, cancel: () => reader.cancel().catch(() => {}) }
}

/** What came first: the promise, or "open" after `ms` (a bound on the wait, never an assertion on time). */
const within = <T>(p: Promise<T>, ms = 5000) => Promise.race([p, Bun.sleep(ms).then(() => "open" as const)])

async function served(...users: [string, "viewer" | "operator" | "admin"][]) {
  t = await authApp()
  for (const [name, role] of users) await t.addUser(name, role)
  const s = serveApp(t)
  stop = s.stop
  return s.url
}

async function endings(root: string) {
  const { entries } = await (await t.call("GET", "/api/audit?limit=1000", undefined, { cookie: root })).json()
  return entries
    .filter((e: any) => e.action?.endsWith(".ended"))
    .map((e: any) => `${e.user} ${e.action} ${e.route} ${e.reason}`)
}

test("a token that expires ends its event stream, once, audited with the reason", async () => {
  const url = await served(["ann", "viewer"], ["root", "admin"])
  const { token } = await t.token(await t.signIn("ann"), { expires_in: 60 })
  const stream = await events(url, { authorization: `Bearer ${token}` })
  expect(await within(stream.ended, 600)).toBe("open")
  t.clock.now += 61_000
  expect(await within(stream.ended)).toBe("ended")
  expect(await endings(await t.signIn("root"))).toEqual(["ann stream.ended /api/events token expired"])
})

test("a session left unused past its idle time ends its stream; one signed out, its shell and its stream", async () => {
  const url = await served(["otto", "operator"])
  const idle = await t.signIn("otto")
  const stream = await events(url, { cookie: idle })
  t.clock.now += t.ctx.config.auth.session.idle * 1000 + 1000
  expect(await within(stream.ended)).toBe("ended")

  const cookie = await t.signIn("otto")
  const id = t.engine.addContainer({ name: "web", state: "running" }).id
  const ws = new WebSocket(`${url.replace("http", "ws")}/api/containers/${id}/shell`, { headers: { cookie } } as never)
  const closed = new Promise<CloseEvent>((resolve) => (ws.onclose = resolve))
  await new Promise((resolve, reject) => ((ws.onopen = resolve), (ws.onerror = reject)))
  const second = await events(url, { cookie })
  expect((await t.call("POST", "/api/auth/logout", undefined, { cookie })).status).toBe(200)
  const close = await within(closed)
  expect(close === "open" ? close : [close.code, close.reason]).toEqual([1008, "signed out"])
  expect(await within(second.ended)).toBe("ended")
})

test("a role lowered by an admin closes the shell, which the role no longer reaches, and keeps the event stream", async () => {
  const url = await served(["otto", "operator"], ["root", "admin"])
  const cookie = await t.signIn("otto")
  const id = t.engine.addContainer({ name: "web", state: "running" }).id
  const ws = new WebSocket(`${url.replace("http", "ws")}/api/containers/${id}/shell`, { headers: { cookie } } as never)
  const closed = new Promise<CloseEvent>((resolve) => (ws.onclose = resolve))
  await new Promise((resolve, reject) => ((ws.onopen = resolve), (ws.onerror = reject)))
  const stream = await events(url, { cookie })
  const root = await t.signIn("root")
  expect((await t.call("PATCH", "/api/users/otto", { role: "viewer" }, { cookie: root })).status).toBe(200)
  const close = await within(closed)
  expect(close === "open" ? close : [close.code, close.reason]).toEqual([1008, "role changed"])
  expect(await within(stream.ended, 600)).toBe("open")
  stream.cancel()
  expect(await endings(root)).toEqual(["otto ws.ended /api/containers/:id/shell role changed"])
})

test("a stream of a caller the front door let through without a credential of its own (sign-in off) is not held", async () => {
  t = await authApp({ SVC_AUTH: "off" })
  const s = serveApp(t)
  stop = s.stop
  const stream = await events(s.url, {})
  expect(await within(stream.ended, 600)).toBe("open")
  stream.cancel()
})
