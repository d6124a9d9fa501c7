import { expect, test } from "bun:test"
import { ConfigError, loadConfig } from "#lib/service/config.ts"

test("SVC_MCP unset: no MCP endpoint", () => {
  expect(loadConfig({}).mcp).toBeNull()
})

test("a mode with the loopback names on the service's own port, no origin, 30 minutes", () => {
  expect(loadConfig({ SVC_MCP: "read-only", SVC_ADDR: "0.0.0.0:9000" }).mcp).toEqual({
    mode: "read-only",
    allowedHosts: ["localhost:9000", "127.0.0.1:9000", "[::1]:9000"],
    allowedOrigins: [],
    sessionTtl: 1800,
  })
})

test("the allowlists and the time-to-live are settings", () => {
  const mcp = loadConfig({
    SVC_MCP: "full",
    SVC_MCP_ALLOWED_HOSTS: "mcp.example.org, localhost:8080",
    SVC_MCP_ALLOWED_ORIGINS: "http://a.test",
    SVC_MCP_SESSION_TTL: "60",
  }).mcp
  expect(mcp).toEqual({
    mode: "full",
    allowedHosts: ["mcp.example.org", "localhost:8080"],
    allowedOrigins: ["http://a.test"],
    sessionTtl: 60,
  })
})

test("an unknown mode is a configuration error naming the modes", () => {
  expect(() => loadConfig({ SVC_MCP: "yes" })).toThrow(
    new ConfigError('SVC_MCP must be one of read-only, full, got "yes"'),
  )
  expect(() => loadConfig({ SVC_MCP: "full", SVC_MCP_SESSION_TTL: "soon" })).toThrow(ConfigError)
})
