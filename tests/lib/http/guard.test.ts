import { describe, expect, test } from "bun:test"
import { checkBody, checkRequest, corsHeaders, hostAllowed, type GuardOptions } from "#lib/http/guard.ts"
import { HttpError } from "#lib/http/http-error.ts"

const o: GuardOptions = {
  allowedHosts: ["manager.example"],
  corsOrigins: ["https://ui.example"],
  listenHost: "127.0.0.1",
}
const req = (headers: Record<string, string>, method = "GET") =>
  new Request("http://127.0.0.1:8080/api/x", { method, headers })
const refusal = (fn: () => void) => {
  try {
    fn()
  } catch (e) {
    return (e as HttpError).status
  }
  return 0
}

describe("host check against DNS rebinding", () => {
  test.each(["localhost:8080", "127.0.0.1:8080", "[::1]:8080", "10.1.2.3:8080", "manager.example", "app.localhost:1"])(
    "%s is allowed",
    (h) => expect(hostAllowed(h, o)).toBe(true),
  )
  test.each(["evil.com:8080", "127.0.0.1.nip.io:8080", "manager.example.evil.com"])("%s is refused", (h) =>
    expect(hostAllowed(h, o)).toBe(false),
  )
})

describe("origin check", () => {
  test("same origin and listed origins pass, others are 403", () => {
    expect(refusal(() => checkRequest(req({ host: "127.0.0.1:8080", origin: "http://127.0.0.1:8080" }), o))).toBe(0)
    expect(refusal(() => checkRequest(req({ host: "127.0.0.1:8080", origin: "https://ui.example" }), o))).toBe(0)
    expect(refusal(() => checkRequest(req({ host: "127.0.0.1:8080", origin: "https://evil.example" }), o))).toBe(403)
    expect(refusal(() => checkRequest(req({ host: "127.0.0.1:8080", origin: "null" }), o))).toBe(403)
    expect(refusal(() => checkRequest(req({ host: "127.0.0.1:8080" }), o))).toBe(0)
  })
  test("CORS headers only for listed origins", () => {
    expect(corsHeaders("https://ui.example", o)["access-control-allow-origin"]).toBe("https://ui.example")
    expect(corsHeaders("https://evil.example", o)).toEqual({})
  })
})

describe("body type check", () => {
  const post = (type: string | undefined, body = "x") =>
    new Request("http://127.0.0.1:8080/api/x", { method: "POST", body, headers: type ? { "content-type": type } : {} })
  test("a form or text body a page could send without preflight is 415", () => {
    expect(refusal(() => checkBody(post("text/plain"), ["application/json"]))).toBe(415)
    expect(refusal(() => checkBody(post("application/x-www-form-urlencoded"), ["application/json"]))).toBe(415)
    expect(refusal(() => checkBody(post("multipart/form-data; boundary=x"), ["application/json"]))).toBe(415)
  })
  test("JSON, a declared type, and a POST without body pass", () => {
    expect(refusal(() => checkBody(post("application/json; charset=utf-8"), ["application/json"]))).toBe(0)
    expect(refusal(() => checkBody(post("application/x-tar"), ["application/x-tar"]))).toBe(0)
    expect(
      refusal(() => checkBody(new Request("http://127.0.0.1:8080/api/x", { method: "POST" }), ["application/json"])),
    ).toBe(0)
  })
})
