import { expect, test } from "bun:test"
import {
  canceled,
  conflict,
  DomainError,
  invalid,
  isDomainError,
  isRefusal,
  KINDS,
  noSpace,
  notFound,
  rateLimited,
  timedOut,
  upstream,
} from "#lib/errors/errors.ts"
import { domainErrorResponse, errorFields, kindOf, STATUS_OF } from "#lib/http/http-error.ts"

test("every kind answers a status of its own, and that status reads back as the kind", () => {
  const statuses = KINDS.map((k) => STATUS_OF[k])
  expect(new Set(statuses).size).toBe(KINDS.length)
  for (const kind of KINDS) expect(kindOf(STATUS_OF[kind])).toBe(kind)
  expect(kindOf(418)).toBe("invalid")
  expect(kindOf(599)).toBe("upstream")
})

test("a domain error's answer carries its code, message, fields and Retry-After", async () => {
  const res = domainErrorResponse(
    conflict("the copy is blocked", "copy_blocked", { fields: { plan: { blockers: 1 } } }),
  )
  expect(res.status).toBe(409)
  expect(await res.json()).toEqual({
    plan: { blockers: 1 },
    error: { code: "copy_blocked", message: "the copy is blocked" },
  })
  const limited = domainErrorResponse(rateLimited("slow down", undefined, { retryAfter: 2.2 }))
  expect(limited.status).toBe(429)
  expect(limited.headers.get("retry-after")).toBe("3")
})

test("isDomainError tells the kind, and withMessage keeps everything but the message", () => {
  const err = notFound("no stack named a", "stack_not_found")
  expect(isDomainError(err)).toBe(true)
  expect(isDomainError(err, "not_found")).toBe(true)
  expect(isDomainError(err, "conflict")).toBe(false)
  expect(isDomainError(new Error("x"))).toBe(false)
  const renamed = err.withMessage("gone")
  expect(renamed).toBeInstanceOf(DomainError)
  expect([renamed.kind, renamed.code, renamed.message]).toEqual(["not_found", "stack_not_found", "gone"])
})

test("a refusal is the request's own fault; a failure on the way, a deadline or a caller gone is none", () => {
  expect(isRefusal(invalid("bad", "invalid_name"))).toBe(true)
  expect(isRefusal(conflict("taken"))).toBe(true)
  for (const err of [upstream("git failed"), timedOut("late"), canceled("gone"), new Error("x")])
    expect(isRefusal(err)).toBe(false)
})

test("any error reads as the status, code and message of its answer (a stream's failure message)", () => {
  expect(errorFields(noSpace("the repository's disk is full", "repository_full"))).toEqual({
    status: 507,
    code: "repository_full",
    message: "the repository's disk is full",
  })
  expect(errorFields(new Error("boom"))).toEqual({ status: 500, code: "internal", message: "boom" })
})
