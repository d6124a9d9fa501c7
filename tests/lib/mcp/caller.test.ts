// /mcp with sign-in on: the bearer token's role decides which tools are listed and run; a changing
// tool answers with its plan until called with confirm: true (unless the token was made with
// mcp_confirm: false); every tool call is audited with the tool's name and the token's owner.
import { afterEach, expect, test } from "bun:test"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { localFiles } from "#lib/files/local.ts"
import { appFor } from "../../support/app.ts"
import { authApp, type AuthTestApp } from "../../support/auth.ts"

const HOST = "127.0.0.1:8080"
let t: AuthTestApp
afterEach(() => t.close())

async function setUp(overrides: Parameters<typeof authApp>[1] = {}) {
  t = await authApp({ SVC_MCP: "full", SVC_ADDR: HOST }, overrides)
  const app = appFor(t.ctx)
  const fetch = async (input: string | URL | Request, init?: RequestInit) => {
    const req = new Request(input, init)
    req.headers.set("host", new URL(req.url).host)
    return (await app.fetch(req))!
  }
  const connect = async (token?: string) => {
    const client = new Client({ name: "test", version: "1" })
    const transport = new StreamableHTTPClientTransport(new URL(`http://${HOST}/mcp`), {
      fetch,
      requestInit: { headers: token ? { authorization: `Bearer ${token}` } : {} },
    })
    await client.connect(transport)
    return client
  }
  for (const role of ["viewer", "operator", "admin"] as const) await t.addUser(role, role)
  return { connect, fetch }
}

const textOf = (r: any) => r.content.map((c: any) => c.text).join("")

test("without a token /mcp is 401, and the refusal is audited", async () => {
  const { connect, fetch } = await setUp()
  await expect(connect()).rejects.toThrow()
  const res = await fetch(`http://${HOST}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: "{}",
  })
  expect(res.status).toBe(401)
  const { entries } = await (
    await t.call("GET", "/api/audit?route=/mcp", undefined, { cookie: await t.signIn("admin") })
  ).json()
  expect(entries.every((e: any) => e.status === 401)).toBe(true)
})

test("a viewer's token lists and runs the reading tools only", async () => {
  const { connect } = await setUp()
  const { token } = await t.token(await t.signIn("viewer"))
  const client = await connect(token)
  const names = (await client.listTools()).tools.map((tool) => tool.name)
  expect(names).toContain("list_containers")
  expect(names).not.toContain("container_action")
  expect(names).not.toContain("deploy_stack")
  const refused = await client.callTool({ name: "container_action", arguments: { id: "x", action: "stop" } })
  expect(refused.isError).toBe(true)
  expect(textOf(refused)).toContain("not_found")
})

test("an operator's changing tool answers with its plan, then acts on confirm: true; both are audited with the tool and the owner", async () => {
  const { connect } = await setUp()
  const { token, id } = await t.token(await t.signIn("operator"))
  t.engine.addContainer({ name: "web", state: "running" })
  const client = await connect(token)
  const tool = (await client.listTools()).tools.find((x) => x.name === "container_action")!
  expect(tool.inputSchema.properties).toHaveProperty("confirm")
  const planned = await client.callTool({ name: "container_action", arguments: { id: "web", action: "stop" } })
  expect(JSON.parse(textOf(planned))).toEqual({
    plan: { tool: "container_action", method: "POST", path: "/api/containers/web/action", body: { action: "stop" } },
    confirm: expect.stringContaining("confirm: true"),
  })
  expect(t.engine.containers.get([...t.engine.containers.keys()][0]!)!.state).toBe("running")
  const done = await client.callTool({
    name: "container_action",
    arguments: { id: "web", action: "stop", confirm: true },
  })
  expect(done.isError).toBeFalsy()
  expect([...t.engine.containers.values()][0]!.state).toBe("exited")
  const { entries } = await (
    await t.call("GET", "/api/audit?user=operator", undefined, { cookie: await t.signIn("admin") })
  ).json()
  const calls = entries
    .filter((e: any) => e.tool === "container_action")
    .map((e: any) => [e.action, e.route, e.status, e.token])
  expect(calls).toEqual([
    ["mcp.tool", "/api/containers/:id/action", 200, id],
    ["mcp.plan", "/mcp", 200, id],
  ])
})

test("a token made with mcp_confirm: false acts at once; a session opened by one token is no other's", async () => {
  const { connect, fetch } = await setUp()
  const cookie = await t.signIn("operator")
  const { token } = await t.token(cookie, { mcp_confirm: false })
  t.engine.addContainer({ name: "web", state: "running" })
  const client = await connect(token)
  const tool = (await client.listTools()).tools.find((x) => x.name === "container_action")!
  expect(tool.inputSchema.properties).not.toHaveProperty("confirm")
  await client.callTool({ name: "container_action", arguments: { id: "web", action: "stop" } })
  expect([...t.engine.containers.values()][0]!.state).toBe("exited")

  const first = await fetch(`http://${HOST}/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "c", version: "1" } },
    }),
  })
  const session = first.headers.get("mcp-session-id")!
  const other = (await t.token(await t.signIn("admin"))).token
  const hijack = await fetch(`http://${HOST}/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${other}`,
      "mcp-session-id": session,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
  })
  expect(hijack.status).toBe(404)
})

test("a dry run needs no confirmation: the copy tool plans with the route's own dry run", async () => {
  const { connect } = await setUp()
  const { token } = await t.token(await t.signIn("operator"))
  const client = await connect(token)
  const dry = await client.callTool({ name: "copy_stack", arguments: { name: "nothing", new_name: "other" } })
  expect(textOf(dry)).not.toContain("confirm: true")
  const real = await client.callTool({
    name: "copy_stack",
    arguments: { name: "nothing", new_name: "other", dry_run: false },
  })
  expect(real.isError).toBe(true)
  expect(textOf(real)).toContain("not_found")
})

test("volume files: a viewer lists and reads them and cannot write; an operator's write plans first, then writes on confirm; no tool opens the host terminal", async () => {
  const root = mkdtempSync(join(tmpdir(), "hm-mcp-volume-"))
  writeFileSync(join(root, "app.ini"), "[a]\nx=1\n")
  try {
    const { connect } = await setUp({
      files: { volume: async () => localFiles(root), container: async () => localFiles(root) },
    })
    const viewer = await connect((await t.token(await t.signIn("viewer"))).token)
    const names = (await viewer.listTools()).tools.map((tool) => tool.name)
    expect(names).toEqual(
      expect.arrayContaining(["list_volume_files", "read_volume_file", "list_container_files", "container_changes"]),
    )
    expect(names).not.toContain("write_volume_file")
    expect(names.some((n) => /shell|terminal/.test(n))).toBe(false)
    const listed = await viewer.callTool({ name: "list_volume_files", arguments: { name: "data" } })
    expect(JSON.parse(textOf(listed)).entries.map((e: any) => e.name)).toEqual(["app.ini"])
    const read = JSON.parse(
      textOf(await viewer.callTool({ name: "read_volume_file", arguments: { name: "data", path: "app.ini" } })),
    )
    expect(read.text).toBe("[a]\nx=1\n")
    expect(
      (await viewer.callTool({ name: "write_volume_file", arguments: { name: "data", path: "app.ini", text: "x" } }))
        .isError,
    ).toBe(true)
    const operator = await connect((await t.token(await t.signIn("operator"))).token)
    const args = { name: "data", path: "app.ini", text: "[a]\nx=2\n", version: read.version }
    const planned = JSON.parse(textOf(await operator.callTool({ name: "write_volume_file", arguments: args })))
    expect(planned.confirm).toContain("confirm: true")
    expect(readFileSync(join(root, "app.ini"), "utf8")).toBe("[a]\nx=1\n")
    const done = await operator.callTool({ name: "write_volume_file", arguments: { ...args, confirm: true } })
    expect(done.isError).toBeFalsy()
    expect(readFileSync(join(root, "app.ini"), "utf8")).toBe("[a]\nx=2\n")
    const stale = await operator.callTool({
      name: "write_volume_file",
      arguments: { ...args, text: "y", confirm: true },
    })
    expect(textOf(stale)).toContain("file_changed")
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
})
