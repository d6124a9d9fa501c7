import { expect, test } from "bun:test"
import { checkJsonDepth, JSON_DEPTH_MAX, readLimited } from "#lib/http/body-limit.ts"

const nested = (depth: number, open = "[", close = "]") => open.repeat(depth) + close.repeat(depth)
const refused = (text: string, max?: number) => {
  try {
    checkJsonDepth(text, max)
    return undefined
  } catch (err) {
    return (err as { status: number; code: string }).code
  }
}

test("nesting up to the limit passes, one more level is refused", () => {
  expect(refused(nested(JSON_DEPTH_MAX))).toBeUndefined()
  expect(refused(nested(JSON_DEPTH_MAX + 1))).toBe("json_too_deep")
  expect(refused('{"a":'.repeat(JSON_DEPTH_MAX + 1) + "1" + "}".repeat(JSON_DEPTH_MAX + 1))).toBe("json_too_deep")
  expect(refused('[{}, [], {"a": [1, {"b": 2}]}]', 4)).toBeUndefined()
  expect(refused('[{}, [], {"a": [1, {"b": 2}]}]', 3)).toBe("json_too_deep")
  expect(refused("[[[[1]]]]", 3)).toBe("json_too_deep")
})

test("depth is counted across siblings, not added up", () => {
  expect(refused(Array.from({ length: 10_000 }, () => "[[1]]").join(","), 3)).toBeUndefined()
})

test("brackets inside strings do not count, escaped quotes do not end a string", () => {
  expect(refused(JSON.stringify({ content: "[[[[{{{{" + "[".repeat(1000) }), 2)).toBeUndefined()
  expect(refused(JSON.stringify({ content: 'a "quoted" [[[[ and a \\ backslash' }), 2)).toBeUndefined()
  expect(refused('["\\\\", [[[1]]]]', 3)).toBe("json_too_deep")
  expect(refused('["\\"[[[[", 1]', 1)).toBeUndefined()
  expect(refused(JSON.stringify(["\u005b".repeat(100), "\\[", '\\"']), 1)).toBeUndefined()
})

test("a body over the limit is refused with 413", async () => {
  const req = new Request("http://x/", { method: "POST", body: "x".repeat(100) })
  await expect(readLimited(req, 10)).rejects.toMatchObject({ status: 413, code: "body_too_large" })
  expect(await readLimited(new Request("http://x/", { method: "POST", body: "abc" }), 10)).toBe("abc")
})
