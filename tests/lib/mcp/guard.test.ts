import { expect, test } from "bun:test"
import { domainErrorResponse } from "#lib/http/http-error.ts"
import { mcpHostAllowed, mcpOriginAllowed, mcpRefusal } from "#lib/mcp/guard.ts"

const loopback = ["localhost:8080", "127.0.0.1:8080", "[::1]:8080"]

test.each([
  ["localhost:8080", true],
  ["LOCALHOST:8080", true],
  ["[::1]:8080", true],
  ["127.0.0.1:8081", false],
  ["localhost", false],
  ["evil.example:8080", false],
  ["", false],
])("Host %p against the loopback defaults: %p", (host, ok) => {
  expect(mcpHostAllowed(host || null, loopback)).toBe(ok)
})

test("an entry without a port allows the name on any port; * allows any host", () => {
  expect(mcpHostAllowed("mcp.example.org:443", ["mcp.example.org"])).toBe(true)
  expect(mcpHostAllowed("mcp.example.org", ["mcp.example.org"])).toBe(true)
  expect(mcpHostAllowed("other.example.org", ["mcp.example.org"])).toBe(false)
  expect(mcpHostAllowed("anything:1", ["*"])).toBe(true)
})

test("no Origin passes; a browser Origin only when listed exactly", () => {
  expect(mcpOriginAllowed(null, [])).toBe(true)
  expect(mcpOriginAllowed("http://localhost:8080", [])).toBe(false)
  expect(mcpOriginAllowed("null", [])).toBe(false)
  expect(mcpOriginAllowed("http://inspector.test", ["http://inspector.test"])).toBe(true)
  expect(mcpOriginAllowed("http://inspector.test:1", ["http://inspector.test"])).toBe(false)
})

test("the refusal is refused (403) in the API's error shape naming the setting", async () => {
  const req = new Request("http://x/mcp", { headers: { host: "localhost:8080", origin: "http://evil.example" } })
  const refusal = mcpRefusal(req, { allowedHosts: loopback, allowedOrigins: [] })!
  expect(refusal.kind).toBe("refused")
  const res = domainErrorResponse(refusal)
  expect(res.status).toBe(403)
  expect(await res.json()).toEqual({
    error: {
      code: "origin_not_allowed",
      message: 'origin "http://evil.example" is not allowed to use /mcp; add it to SVC_MCP_ALLOWED_ORIGINS',
    },
  })
  expect(
    mcpRefusal(new Request("http://x/mcp", { headers: { host: "localhost:8080" } }), {
      allowedHosts: loopback,
      allowedOrigins: [],
    }),
  ).toBeNull()
})
