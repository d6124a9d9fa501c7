import { expect, test } from "bun:test"
import * as v from "valibot"
import { stackNameSchema } from "#lib/stacks/name.ts"
import { versionParam } from "#lib/stacks/schemas.ts"

test("version numbers in paths are positive whole numbers", () => {
  expect(v.parse(versionParam, "12")).toBe(12)
  for (const bad of ["0", "-1", "1.5", "01", "x", "", "1234567890"])
    expect(v.safeParse(versionParam, bad).success).toBe(false)
})

test("a stack name in a path follows the stack name rule", () => {
  for (const good of ["shop", "a", "web-1_x", "9lives", "x".repeat(63)])
    expect(v.safeParse(stackNameSchema, good).success).toBe(true)
  for (const bad of ["Shop", "-rf", "_x", "a b", "..", "a/b", "x".repeat(64), ""])
    expect(v.safeParse(stackNameSchema, bad).success).toBe(false)
})
