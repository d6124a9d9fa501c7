import { expect, test } from "bun:test"
import { DomainError } from "#lib/errors/errors.ts"
import { Limiter } from "#lib/tts/limiter.ts"

function gate() {
  let open!: () => void
  const opened = new Promise<void>((resolve) => (open = resolve))
  return { open, opened }
}

test("at most `limit` tasks run; the next ones wait in order; beyond the queue a 503", async () => {
  const limiter = new Limiter(2, 1)
  const started: string[] = []
  const gates = { a: gate(), b: gate(), c: gate() }
  const run = (name: keyof typeof gates) =>
    limiter.run(async () => {
      started.push(name)
      await gates[name].opened
      return name
    })
  const a = run("a")
  const b = run("b")
  const c = run("c")
  await Bun.sleep(5)
  expect(started).toEqual(["a", "b"])
  const refused = await limiter.run(async () => "d").catch((err) => err)
  expect(refused).toBeInstanceOf(DomainError)
  expect(refused.kind).toBe("unavailable")
  gates.a.open()
  expect(await a).toBe("a")
  await Bun.sleep(5)
  expect(started).toEqual(["a", "b", "c"])
  gates.b.open()
  gates.c.open()
  expect(await Promise.all([b, c])).toEqual(["b", "c"])
  expect(await limiter.run(async () => "after")).toBe("after")
})

test("a failing task frees its slot", async () => {
  const limiter = new Limiter(1, 0)
  await expect(limiter.run(async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom")
  expect(await limiter.run(async () => 1)).toBe(1)
})
