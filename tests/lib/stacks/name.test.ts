import { expect, test } from "bun:test"
import { DomainError } from "#lib/errors/errors.ts"
import { isStackName, stackName, STACK_NAME_MAX } from "#lib/stacks/name.ts"

test("valid compose project names pass unchanged", () => {
  for (const name of ["web", "a", "0day", "my-app_2", "x".repeat(STACK_NAME_MAX)]) expect(stackName(name)).toBe(name)
})

test("traversal, separators, encodings, case and length are refused with 400", () => {
  const bad = [
    "",
    "..",
    ".",
    "../etc",
    "a/b",
    "a\\b",
    "%2e%2e",
    "..%2F",
    "-web",
    "_web",
    "Web",
    "web ",
    "wéb",
    "a.b",
    "x".repeat(STACK_NAME_MAX + 1),
    "a\0b",
  ]
  for (const name of bad) {
    expect(isStackName(name)).toBe(false)
    try {
      stackName(name)
      throw new Error(`accepted ${name}`)
    } catch (err) {
      expect(err).toBeInstanceOf(DomainError)
      expect((err as DomainError).kind).toBe("invalid")
    }
  }
  expect(isStackName(undefined)).toBe(false)
})
