import { expect, test } from "bun:test"
import { SessionStore } from "#lib/mcp/sessions.ts"

function store(ttlMs = 1000, max = 3) {
  const clock = { now: 0 }
  const closed: string[] = []
  const s = new SessionStore<{ id: string; close(): void }>(ttlMs, () => clock.now, max)
  const session = (id: string) => ({ id, close: () => void closed.push(id) })
  return { s, clock, closed, session }
}

test("a session used within its time-to-live stays; an idle one is closed", () => {
  const { s, clock, closed, session } = store()
  s.add("a", session("a"))
  s.add("b", session("b"))
  clock.now = 900
  expect(s.get("a")?.id).toBe("a")
  clock.now = 1500
  expect(s.get("a")?.id).toBe("a")
  expect(s.get("b")).toBeUndefined()
  expect(closed).toEqual(["b"])
  expect(s.size).toBe(1)
})

test("past the cap the least recently used session gives way", () => {
  const { s, closed, session } = store(60_000, 2)
  s.add("a", session("a"))
  s.add("b", session("b"))
  s.get("a")
  s.add("c", session("c"))
  expect(closed).toEqual(["b"])
  expect(s.get("a")?.id).toBe("a")
  expect(s.get("c")?.id).toBe("c")
})

test("delete closes the session once", () => {
  const { s, closed, session } = store()
  s.add("a", session("a"))
  s.add("b", session("b"))
  s.delete("a")
  s.delete("a")
  expect(closed).toEqual(["a"])
  expect(s.size).toBe(1)
})
