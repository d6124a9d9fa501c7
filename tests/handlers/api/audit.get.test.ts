import { afterEach, expect, test } from "bun:test"
import { authApp, type AuthTestApp } from "../../support/auth.ts"

let t: AuthTestApp
afterEach(() => t.close())

test("the audit log a page at a time through the cursor, filtered; bad filters are 400; only an admin reads it", async () => {
  t = await authApp()
  await t.addUser("root", "admin")
  await t.addUser("vera", "viewer")
  const root = await t.signIn("root")
  const vera = await t.signIn("vera")
  for (let i = 0; i < 5; i++) await t.call("POST", "/api/images/scan", undefined, { cookie: vera })
  const seen: string[] = []
  let next: string | null = null
  do {
    const res = await t.call("GET", `/api/audit?user=vera&limit=2${next ? `&cursor=${next}` : ""}`, undefined, {
      cookie: root,
    })
    const page: { entries: { id: string; status: number }[]; next: string | null } = await res.json()
    expect(page.entries.length).toBeLessThanOrEqual(2)
    seen.push(...page.entries.map((e) => `${e.status}`))
    next = page.next
  } while (next)
  expect(seen).toEqual(["403", "403", "403", "403", "403", "200"])
  const since = new Date(t.clock.now + 1000).toISOString()
  expect(
    (await (await t.call("GET", `/api/audit?since=${since}`, undefined, { cookie: root })).json()).entries,
  ).toEqual([])
  for (const query of ["status_min=abc", "since=yesterday", "cursor=nope", "limit=0", "limit=5000"])
    expect((await t.call("GET", `/api/audit?${query}`, undefined, { cookie: root })).status).toBe(400)
  expect((await t.call("GET", "/api/audit", undefined, { cookie: vera })).status).toBe(403)
})
