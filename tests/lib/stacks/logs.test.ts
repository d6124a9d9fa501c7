import { expect, test } from "bun:test"
import { mergeBatches } from "#lib/stacks/logs.ts"

async function* source(name: string, chunks: number, perChunk: number) {
  for (let c = 0; c < chunks; c++) {
    await Bun.sleep(1)
    for (let i = 0; i < perChunk; i++) yield `${name}${c * perChunk + i}`
  }
}

test("every item of every source arrives once, in each source's order, in batches", async () => {
  const batches: string[][] = []
  for await (const b of mergeBatches([source("a", 20, 50), source("b", 10, 100), source("c", 0, 0)])) batches.push(b)
  const all = batches.flat()
  expect(all.length).toBe(2000)
  for (const name of ["a", "b"])
    expect(all.filter((x) => x.startsWith(name))).toEqual(Array.from({ length: 1000 }, (_, i) => `${name}${i}`))
  expect(batches.length).toBeLessThan(all.length / 10)
})

test("a failing source fails the merge after what came before it", async () => {
  async function* broken() {
    yield "x"
    throw new Error("engine went away")
  }
  const seen: string[] = []
  const error = await (async () => {
    for await (const b of mergeBatches([broken()])) seen.push(...b)
  })().then(
    () => undefined,
    (e: Error) => e,
  )
  expect(error?.message).toBe("engine went away")
  expect(seen).toEqual(["x"])
})

test("no sources: the merge ends at once", async () => {
  expect(await Array.fromAsync(mergeBatches([]))).toEqual([])
})
