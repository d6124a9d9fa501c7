import { expect, test } from "bun:test"
import { StackMemo } from "#lib/stacks/memo.ts"

/** Stand-in for the store: the stacks here, and what it tells of a stack that goes. */
function store(...names: string[]) {
  const here = new Set(names)
  const told: ((name: string) => void)[] = []
  return {
    has: (name: string) => here.has(name),
    onForget: (fn: (name: string) => void) => void told.push(fn),
    add: (name: string) => void here.add(name),
    forget(name: string) {
      here.delete(name)
      for (const fn of told) fn(name)
    },
  }
}

/** A load answering what `value` holds when it is let go, counting the loads. */
function loader(value: () => string) {
  const waiting: (() => void)[] = []
  let held = false
  const l = {
    loads: 0,
    hold: () => void (held = true),
    release: () => {
      held = false
      for (const go of waiting.splice(0)) go()
    },
    load: async () => {
      l.loads++
      const answer = value()
      if (held) await new Promise<void>((go) => waiting.push(go))
      return answer
    },
  }
  return l
}

test("a stack's value is loaded once, then kept; the owner's writes replace it", async () => {
  const s = store("a")
  let disk = "one"
  const l = loader(() => disk)
  const memo = new StackMemo(s, l.load)
  expect([await memo.get("a"), await memo.get("a")]).toEqual(["one", "one"])
  expect(l.loads).toBe(1)
  memo.set("a", "two")
  disk = "two"
  expect(await memo.get("a")).toBe("two")
  expect(l.loads).toBe(1)
})

test("a stack that goes is forgotten, and a new stack of its name is loaded anew", async () => {
  const s = store("a")
  let disk = "old"
  const l = loader(() => disk)
  const memo = new StackMemo(s, l.load)
  expect(await memo.get("a")).toBe("old")
  s.forget("a")
  disk = "new"
  s.add("a")
  expect(await memo.get("a")).toBe("new")
  expect(l.loads).toBe(2)
})

test("a load under way when its stack goes is answered but not kept", async () => {
  const s = store("a")
  let disk = "gone stack's"
  const l = loader(() => disk)
  const memo = new StackMemo(s, l.load)
  l.hold()
  const asked = memo.get("a")
  s.forget("a")
  s.add("a")
  disk = "new stack's"
  l.release()
  expect(await asked).toBe("gone stack's")
  expect(await memo.get("a")).toBe("new stack's")
})

test("a write landing while a load is under way wins over the load", async () => {
  const s = store("a")
  const l = loader(() => "before the write")
  const memo = new StackMemo(s, l.load)
  l.hold()
  const asked = memo.get("a")
  memo.set("a", "written")
  l.release()
  expect(await asked).toBe("written")
  expect(await memo.get("a")).toBe("written")
})

test("nothing is kept of a name that is no stack", async () => {
  const s = store()
  let disk = "none"
  const l = loader(() => disk)
  const memo = new StackMemo(s, l.load)
  memo.set("x", "written for no stack")
  expect(await memo.get("x")).toBe("none")
  s.add("x")
  disk = "the stack's"
  expect(await memo.get("x")).toBe("the stack's")
  expect(l.loads).toBe(2)
})
