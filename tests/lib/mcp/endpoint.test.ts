import { afterEach, describe, expect, test } from "bun:test"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv"
import { MCP_MAX_BODY, mcpEndpoint } from "#lib/mcp/endpoint.ts"
import { bindTools } from "#lib/mcp/schemas.ts"
import { toolsFor } from "#lib/mcp/tools.ts"
import { loadRoutes } from "#lib/service/handler.ts"
import { routes } from "../../../routes.gen.ts"
import { appFor, testApp, type TestApp } from "../../support/app.ts"

const rows = await loadRoutes(routes)

const HOST = "127.0.0.1:8080"
let t: TestApp | undefined
afterEach(() => t?.close())

/** The app with /mcp on, its fake engine and a clock the test moves. */
async function mcpApp(env: Record<string, string> = {}) {
  const clock = { now: 1_000_000 }
  t = await testApp({ now: () => clock.now }, { SVC_MCP: "full", SVC_ADDR: HOST, ...env })
  const app = appFor(t.ctx)
  // What a client on loopback sends: the Host header names the address it dialled.
  const fetch = async (input: string | URL | Request, init?: RequestInit) => {
    const req = new Request(input, init)
    req.headers.set("host", new URL(req.url).host)
    return (await app.fetch(req))!
  }
  const connect = async () => {
    const client = new Client({ name: "test", version: "1" })
    const transport = new StreamableHTTPClientTransport(new URL(`http://${HOST}/mcp`), { fetch })
    await client.connect(transport)
    return { client, transport }
  }
  // The endpoint alone, over the same app, for counting its sessions.
  const endpoint = mcpEndpoint(
    t.ctx.config.mcp!,
    rows,
    async (req: Request) => (await app.fetch(req))!,
    () => clock.now,
  )
  return { t: t!, app, fetch, clock, connect, endpoint }
}

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "curl", version: "1" } },
}
const post = (body: unknown, headers: Record<string, string> = {}) =>
  new Request(`http://${HOST}/mcp`, {
    method: "POST",
    headers: {
      host: HOST,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  })
const textOf = (r: any) => r.content.map((c: any) => c.text).join("")

describe("/mcp routing", () => {
  test("is 404 when SVC_MCP is unset", async () => {
    t = await testApp()
    const res = await t.call("POST", "/mcp", initialize)
    expect(res.status).toBe(404)
  })

  test("a foreign Host is refused before the transport", async () => {
    const { app } = await mcpApp()
    const res = (await app.fetch(post(initialize, { host: "evil.example:8080" })))!
    expect(res.status).toBe(403)
    expect((await res.json()).error.code).toBe("host_not_allowed")
  })

  test("a loopback name on another port is foreign too", async () => {
    const { app } = await mcpApp()
    expect((await app.fetch(post(initialize, { host: "localhost:9999" })))!.status).toBe(403)
  })

  test("a browser Origin is refused unless listed", async () => {
    const { app } = await mcpApp()
    const res = (await app.fetch(post(initialize, { origin: `http://${HOST}` })))!
    expect(res.status).toBe(403)
    expect((await res.json()).error.code).toBe("origin_not_allowed")
  })

  test("a listed Origin passes and gets CORS headers, preflight included", async () => {
    const { app } = await mcpApp({ SVC_MCP_ALLOWED_ORIGINS: "http://inspector.test" })
    const pre = (await app.fetch(
      new Request(`http://${HOST}/mcp`, {
        method: "OPTIONS",
        headers: { host: HOST, origin: "http://inspector.test" },
      }),
    ))!
    expect(pre.status).toBe(204)
    expect(pre.headers.get("access-control-allow-headers")).toContain("mcp-session-id")
    const res = (await app.fetch(post(initialize, { origin: "http://inspector.test" })))!
    expect(res.status).toBe(200)
    expect(res.headers.get("access-control-allow-origin")).toBe("http://inspector.test")
    expect(res.headers.get("access-control-expose-headers")).toContain("mcp-session-id")
  })

  test("the API's own guard does not apply: a non-JSON content type reaches the transport", async () => {
    const { app } = await mcpApp()
    const res = (await app.fetch(post(initialize, { "content-type": "text/plain" })))!
    expect(res.status).toBe(415)
    expect(await res.text()).toContain("application/json")
  })

  test("a body over the limit is 413 and opens no session", async () => {
    const { endpoint } = await mcpApp()
    const res = await endpoint.handle(post({ ...initialize, pad: "x".repeat(MCP_MAX_BODY) }))
    expect(res.status).toBe(413)
    expect(endpoint.sessions.size).toBe(0)
    expect((await endpoint.handle(post(initialize))).status).toBe(200)
    expect(endpoint.sessions.size).toBe(1)
  })
})

describe("tools", () => {
  test("full mode lists the change tools, read-only mode does not", async () => {
    const full = await mcpApp()
    const names = (await (await full.connect()).client.listTools()).tools.map((x) => x.name)
    expect(names).toContain("list_containers")
    expect(names).toContain("container_action")
    full.t.close()
    const ro = await mcpApp({ SVC_MCP: "read-only" })
    const { tools } = await (await ro.connect()).client.listTools()
    expect(tools.map((x) => x.name)).toContain("list_containers")
    expect(tools.map((x) => x.name)).not.toContain("container_action")
    expect(tools.every((x) => x.annotations?.readOnlyHint === true)).toBe(true)
  })

  test("a read tool returns the API's answer", async () => {
    const { t, connect } = await mcpApp()
    t.engine.addContainer({ name: "web", state: "running" })
    const { client } = await connect()
    const result = await client.callTool({ name: "list_containers", arguments: {} })
    expect(result.isError).toBeFalsy()
    expect(JSON.parse(textOf(result)).map((c: any) => c.name)).toEqual(["web"])
  })

  test("a registry kept through its tool: no tool's answer, nor an error, ever holds its password", async () => {
    const { connect } = await mcpApp()
    const { client } = await connect()
    const secret = "mcp-registry-pw-41d7"
    const calls = [
      ["add_registry", { name: "lan", address: "http://127.0.0.1:9", username: "u", password: secret }],
      ["add_registry", { name: "lan", address: "127.0.0.1:9", username: "u", password: secret }],
      ["list_registries", {}],
      ["test_registry", { name: "lan" }],
      ["pull_image", { ref: "127.0.0.1:9/app:1" }],
      ["remove_registry", { name: "lan" }],
    ] as const
    const texts = []
    for (const [name, args] of calls) texts.push(textOf(await client.callTool({ name, arguments: { ...args } })))
    expect(JSON.parse(texts[0]!)).toMatchObject({ name: "lan", has_password: true, insecure: true })
    expect(texts[1]).toStartWith("registry_exists:")
    expect(JSON.parse(texts[3]!)).toMatchObject({ ok: false, code: "registry_unreachable" })
    expect(JSON.parse(texts[4]!)).toMatchObject({ credentials: "lan" })
    for (const text of texts) expect(text).not.toContain(secret)
  })

  test("an error of the API comes back as a tool error with its message", async () => {
    const { connect } = await mcpApp()
    const { client } = await connect()
    const result = await client.callTool({ name: "inspect_container", arguments: { id: "nope" } })
    expect(result.isError).toBe(true)
    expect(textOf(result)).toBe("not_found: No such container: nope")
  })

  test("tools/list shows each tool's arguments as its route's schemas make them", async () => {
    const { connect } = await mcpApp()
    const listed = (await (await connect()).client.listTools()).tools
    const bound = bindTools(toolsFor("full"), rows)
    expect(listed.map((x) => [x.name, x.inputSchema])).toEqual(bound.map((x) => [x.name, x.inputSchema]))
  })

  test("a bad argument is a tool error with the route's own message, and the engine is not called", async () => {
    const { t, connect } = await mcpApp()
    const { client } = await connect()
    const route = await (await t.call("POST", "/api/containers/web/action", { action: "explode" })).json()
    const result = await client.callTool({ name: "container_action", arguments: { id: "web", action: "explode" } })
    expect(result.isError).toBe(true)
    expect(textOf(result)).toBe(`invalid_request: ${route.error.message}`)
    expect(t.engine.calls.filter((c) => c.op === "containerAction")).toEqual([])
  })

  test("a change tool changes the engine through the API", async () => {
    const { t, connect } = await mcpApp()
    const web = t.engine.addContainer({ name: "web", state: "running" })
    const { client } = await connect()
    const result = await client.callTool({ name: "container_action", arguments: { id: "web", action: "stop" } })
    expect(result.isError).toBeFalsy()
    expect(JSON.parse(textOf(result))).toEqual({ id: web.id, action: "stop", state: "exited" })
  })

  test("container logs come back as lines, not a stream, in the text and as structured content", async () => {
    const { t, connect } = await mcpApp()
    t.engine.addContainer({ name: "web", logs: [{ stream: "stdout", ts: "2026-01-01T00:00:00Z", line: "hello" }] })
    const { client } = await connect()
    const result = await client.callTool({ name: "container_logs", arguments: { id: "web", tail: 5 } })
    const lines = [{ service: "web", container: "web", stream: "stdout", ts: "2026-01-01T00:00:00Z", line: "hello" }]
    expect(JSON.parse(textOf(result))).toEqual(lines)
    expect(result.structuredContent).toEqual({ items: lines })
  })

  test("each structured answer fits the outputSchema tools/list gives", async () => {
    const { t, connect } = await mcpApp()
    t.engine.addContainer({ name: "web", state: "running" })
    const { client } = await connect()
    const listed = (await client.listTools()).tools
    for (const [name, args] of [
      ["list_containers", {}],
      ["inspect_container", { id: "web" }],
      ["container_action", { id: "web", action: "stop" }],
    ] as const) {
      const result = await client.callTool({ name, arguments: args })
      const check = new AjvJsonSchemaValidator().getValidator(listed.find((x) => x.name === name)!.outputSchema!)
      expect([name, check(result.structuredContent)]).toEqual([name, expect.objectContaining({ valid: true })])
    }
  })
})

describe("sessions", () => {
  test("DELETE ends a session; its id is then unknown", async () => {
    const { app, connect } = await mcpApp()
    const { client, transport } = await connect()
    const id = transport.sessionId!
    await transport.terminateSession()
    const res = (await app.fetch(
      post(
        { jsonrpc: "2.0", id: 2, method: "tools/list" },
        { "mcp-session-id": id, "mcp-protocol-version": "2025-06-18" },
      ),
    ))!
    expect(res.status).toBe(404)
    await client.close()
  })

  test("a session idle past its time-to-live is dropped", async () => {
    const { app, clock, connect } = await mcpApp({ SVC_MCP_SESSION_TTL: "60" })
    const { client, transport } = await connect()
    clock.now += 59_000
    await client.listTools()
    clock.now += 59_000
    await client.listTools()
    clock.now += 61_000
    const res = (await app.fetch(
      post(
        { jsonrpc: "2.0", id: 9, method: "tools/list" },
        { "mcp-session-id": transport.sessionId!, "mcp-protocol-version": "2025-06-18" },
      ),
    ))!
    expect(res.status).toBe(404)
  })

  test("abandoned sessions are swept by the next request, whoever sends it", async () => {
    const { endpoint, clock } = await mcpApp({ SVC_MCP_SESSION_TTL: "60" })
    for (let i = 0; i < 3; i++) expect((await endpoint.handle(post(initialize))).status).toBe(200)
    expect(endpoint.sessions.size).toBe(3)
    clock.now += 61_000
    expect((await endpoint.handle(post(initialize))).status).toBe(200)
    expect(endpoint.sessions.size).toBe(1)
  })

  test("a request that is not an initialize opens no session", async () => {
    const { endpoint } = await mcpApp()
    const res = await endpoint.handle(post({ jsonrpc: "2.0", id: 1, method: "tools/list" }))
    expect(res.status).toBe(400)
    expect(endpoint.sessions.size).toBe(0)
  })
})
