import { expect, test } from "bun:test"
import { parseCompose, readCompose } from "#lib/stacks/model.ts"

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (err: unknown) => err,
  )
const keys = (n: number) => Array.from({ length: n }, (_, i) => `x-k${i}: 1`).join("\n")

test("a compose file from a request: a mapping of at most 256 top-level keys", async () => {
  expect(Object.keys(await readCompose(`services: {}\n${keys(255)}`))).toHaveLength(256)
  expect(await refusal(readCompose(`services: {}\n${keys(256)}`))).toMatchObject({
    kind: "invalid",
    code: "invalid_compose",
    message: "the compose file has 257 top-level keys; at most 256",
  })
  expect(await refusal(readCompose("- a list"))).toMatchObject({
    kind: "invalid",
    code: "invalid_compose",
    message: "the compose file must be a YAML mapping",
  })
  expect(() => parseCompose("just text")).toThrow("the compose file must be a YAML mapping")
})
