import { expect, test } from "bun:test"
import * as v from "valibot"
import { flag, tail } from "#lib/http/query.ts"

test("flags are true/1 or false/0", () => {
  expect(["true", "1", "false", "0"].map((s) => v.parse(flag, s))).toEqual([true, true, false, false])
  expect(v.safeParse(flag, "yes").success).toBe(false)
})

test("a tail is a whole number or all", () => {
  expect(v.parse(tail, "25")).toBe(25)
  expect(v.parse(tail, "all")).toBe("all")
  for (const bad of ["-1", "2.5", "", "some"]) expect(v.safeParse(tail, bad).success).toBe(false)
})
