// /mcp against the running service and the real private engine, driven by the SDK's own client.
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv"
import { join } from "node:path"
import { STACK_LABEL } from "#lib/engine/containers.ts"
import { loadRoutes } from "#lib/service/handler.ts"
import { bindTools } from "#lib/mcp/schemas.ts"
import { toolsFor } from "#lib/mcp/tools.ts"
import { routes } from "../../routes.gen.ts"
import { cleanup, engineHost, realEngine, runContainer, TEST_LABEL, testImage } from "../support/engine.ts"
import { startService, type Service } from "../support/service.ts"

const engine = realEngine()
const textOf = (r: any): string => r.content.map((c: any) => c.text).join("")
const json = (r: any) => JSON.parse(textOf(r))

async function connect(svc: Service) {
  const client = new Client({ name: "integration", version: "1" })
  const transport = new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp`))
  await client.connect(transport)
  return { client, transport }
}

/** The tool's answer, after checking that its structured content fits the outputSchema tools/list gives and carries what the text does. */
async function structured(client: Client, name: string, args: Record<string, unknown>) {
  const tool = (await client.listTools()).tools.find((t) => t.name === name)!
  const result = await client.callTool({ name, arguments: args })
  expect(new AjvJsonSchemaValidator().getValidator(tool.outputSchema!)(result.structuredContent)).toMatchObject({
    valid: true,
  })
  const value = json(result)
  expect(result.structuredContent).toEqual(Array.isArray(value) ? { items: value } : value)
  return value
}

/** Polls a tool until `ok` holds for its JSON answer (the answer is returned either way). */
async function until(client: Client, name: string, args: Record<string, unknown>, ok: (value: any) => boolean) {
  let value: any
  for (let i = 0; i < 100; i++, await Bun.sleep(100))
    if (ok((value = json(await client.callTool({ name, arguments: args }))))) break
  return value
}

const STACK = "hm-mcp-stack"
const COPY = "hm-mcp-copy"
const SECRET = "mcp-s3cret-value"
const compose = `services:
  app:
    image: ${testImage()}
    command: ["sh", "-c", "trap 'exit 0' TERM; while true; do echo app says $$GREETING; sleep 0.2; done"]
    environment:
      GREETING: \${GREETING}
      TOKEN: \${TOKEN}
    labels: { ${TEST_LABEL}: "1" }
`

const initialize = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "curl", version: "1" } },
})
const postMcp = (svc: Service, headers: Record<string, string> = {}, body = initialize) =>
  fetch(`${svc.url}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body,
  })

describe("full mode", () => {
  let svc: Service
  let client: Client
  beforeAll(async () => {
    svc = await startService({ SVC_MCP: "full", DOCKER_HOST: engineHost() })
    ;({ client } = await connect(svc))
  })
  afterAll(async () => {
    await client.close()
    for (const name of [STACK, COPY]) await fetch(`${svc.url}/api/stacks/${name}?volumes=true`, { method: "DELETE" })
    await svc.stop()
    const out = `${await new Response(svc.proc.stdout as ReadableStream).text()}${await new Response(svc.proc.stderr as ReadableStream).text()}`
    expect(out).not.toContain(SECRET)
    await cleanup(engine)
  })

  test("the change tools are listed beside the read tools, each with its route's schemas", async () => {
    const listed = (await client.listTools()).tools
    expect(listed.map((t) => t.name)).toEqual(
      expect.arrayContaining([
        "list_containers",
        "container_logs",
        "event_history",
        "container_action",
        "remove_container",
      ]),
    )
    const bound = bindTools(toolsFor("full"), await loadRoutes(routes))
    expect(listed.map((t) => [t.name, t.inputSchema, t.outputSchema])).toEqual(
      bound.map((t) => [t.name, t.inputSchema, t.outputSchema]),
    )
  })

  test("the host's inventory reads through the tools as the API answers it", async () => {
    const read = async (name: string) => json(await client.callTool({ name, arguments: {} }))
    expect((await read("system_summary")).engine.api_version).toBe((await engine.version()).ApiVersion)
    expect((await read("list_images")).flatMap((i: any) => i.tags)).toContain(testImage())
    expect((await read("list_networks")).map((n: any) => n.name)).toContain("bridge")
    expect(await read("list_volumes")).toEqual(await (await fetch(`${svc.url}/api/volumes`)).json())
    expect(await read("list_nodes")).toEqual([])
    expect(await read("cluster_status")).toMatchObject({ role: "none" })
  })

  test("an agent reads a real container, its log, stops it and sees the engine's event", async () => {
    const id = await runContainer(
      engine,
      "hm-mcp-chatty",
      "trap 'exit 0' TERM; echo hello from mcp; echo second line; sleep 300 & wait",
    )
    const listed = json(await client.callTool({ name: "list_containers", arguments: {} }))
    expect(listed.find((c: any) => c.id === id)?.name).toBe("hm-mcp-chatty")

    const detail = json(await client.callTool({ name: "inspect_container", arguments: { id: "hm-mcp-chatty" } }))
    expect([detail.id, detail.state]).toEqual([id, "running"])

    let lines: any[] = []
    for (let i = 0; i < 50 && lines.length < 2; i++, await Bun.sleep(100))
      lines = await structured(client, "container_logs", { id, tail: 10 })
    expect(lines.map((l) => l.line)).toEqual(["hello from mcp", "second line"])
    expect(
      json(await client.callTool({ name: "container_logs", arguments: { id, tail: 1 } })).map((l: any) => l.line),
    ).toEqual(["second line"])

    const stopped = json(await client.callTool({ name: "container_action", arguments: { id, action: "stop" } }))
    expect(stopped).toEqual({ id, action: "stop", state: "exited" })
    expect((await engine.inspectContainer(id)).State.Running).toBe(false)

    let events: any[] = []
    for (let i = 0; i < 50 && !events.some((e) => e.id === id && e.action === "stop"); i++, await Bun.sleep(100))
      events = json(await client.callTool({ name: "event_history", arguments: {} }))
    expect(events.some((e) => e.id === id && e.action === "stop")).toBe(true)

    const removed = await client.callTool({ name: "remove_container", arguments: { id } })
    expect(removed.isError).toBeFalsy()
    expect(await engine.inspectContainer(id).catch((e) => e.kind)).toBe("not_found")
  }, 30_000)

  test("an agent runs a stack end to end: deploy, status, logs, environment, apply, rollback, pause, copy, delete", async () => {
    const deployed = await client.callTool({
      name: "deploy_stack",
      arguments: {
        name: STACK,
        content: compose,
        env: [
          { key: "GREETING", value: "hi", secret: false },
          { key: "TOKEN", value: SECRET, secret: true },
        ],
      },
    })
    expect(deployed.isError).toBeFalsy()
    expect(json(deployed)).toMatchObject({ name: STACK, managed: true, current_version: 1 })

    await until(client, "inspect_stack", { name: STACK }, (s) => s.status === "running")
    const status = await structured(client, "inspect_stack", { name: STACK })
    expect(status.services.map((x: any) => x.name)).toEqual(["app"])
    expect((await structured(client, "list_stacks", {})).map((x: any) => x.name)).toContain(STACK)
    const logs = await until(client, "stack_logs", { name: STACK, tail: 3 }, (lines) =>
      lines.some((l: any) => l.line === "app says hi"),
    )
    expect(logs.find((l: any) => l.line === "app says hi")).toMatchObject({ service: "app" })

    const envText = textOf(await client.callTool({ name: "stack_env", arguments: { name: STACK } }))
    expect(JSON.parse(envText)).toEqual([
      { key: "GREETING", value: "hi", secret: false },
      { key: "TOKEN", value: null, secret: true },
    ])
    expect(envText).not.toContain(SECRET)
    const { resources } = await client.listResources()
    expect(resources.map((r) => r.uri)).toContain(`stack://${STACK}/compose`)
    const file = await client.readResource({ uri: `stack://${STACK}/compose` })
    expect(file.contents[0]).toMatchObject({ mimeType: "application/yaml", text: compose })

    const pending = json(
      await client.callTool({
        name: "set_stack_env",
        arguments: {
          name: STACK,
          env: [
            { key: "GREETING", value: "bye" },
            { key: "TOKEN", value: null },
          ],
        },
      }),
    )
    expect(pending.env_pending).toBe(true)
    expect(json(await client.callTool({ name: "apply_stack", arguments: { name: STACK } }))).toMatchObject({
      current_version: 2,
      env_pending: false,
    })
    await until(client, "stack_logs", { name: STACK, tail: 1 }, (lines) =>
      lines.some((l: any) => l.line === "app says bye"),
    )
    expect(
      json(await client.callTool({ name: "stack_versions", arguments: { name: STACK } })).map((v: any) => v.version),
    ).toEqual([1, 2])

    expect(
      json(await client.callTool({ name: "rollback_stack", arguments: { name: STACK, version: 1 } })),
    ).toMatchObject({ current_version: 1 })
    const back = await until(client, "stack_logs", { name: STACK, tail: 1 }, (lines) =>
      lines.some((l: any) => l.line === "app says hi"),
    )
    expect(back.some((l: any) => l.line === "app says hi")).toBe(true)

    expect(json(await client.callTool({ name: "pause_stack", arguments: { name: STACK } })).status).toBe("paused")
    expect(json(await client.callTool({ name: "unpause_stack", arguments: { name: STACK } })).status).toBe("running")

    const plan = json(await client.callTool({ name: "copy_stack", arguments: { name: STACK, as: COPY } }))
    expect(plan).toMatchObject({ dry_run: true, blockers: [] })
    expect(json(await client.callTool({ name: "list_stacks", arguments: {} })).map((x: any) => x.name)).not.toContain(
      COPY,
    )
    const copied = await client.callTool({ name: "copy_stack", arguments: { name: STACK, as: COPY, dry_run: false } })
    expect(copied.isError).toBeFalsy()
    expect(json(copied).dry_run).toBe(false)
    expect(json(await client.callTool({ name: "stack_compose", arguments: { name: COPY } })).content).toBe(compose)
    expect(json(await client.callTool({ name: "delete_stack", arguments: { name: COPY } })).removed).toBe(COPY)

    const removed = await client.callTool({ name: "delete_stack", arguments: { name: STACK, volumes: true } })
    expect(removed.isError).toBeFalsy()
    expect(json(await client.callTool({ name: "list_stacks", arguments: {} })).map((x: any) => x.name)).not.toContain(
      STACK,
    )
    expect(await engine.listContainers({ all: true, filters: { label: [`${STACK_LABEL}=${STACK}`] } })).toEqual([])
    const gone = await client.callTool({ name: "inspect_stack", arguments: { name: STACK } })
    expect(gone.isError).toBe(true)
    expect(textOf(gone)).toStartWith("not_found: ")
  }, 180_000)

  test("a compose file compose refuses is a tool error with compose's message, and nothing is deployed", async () => {
    const content = `services:\n  app:\n    image: ${testImage()}\n    no_such_option: 1\n`
    const result = await client.callTool({ name: "deploy_stack", arguments: { name: "hm-mcp-broken", content } })
    expect(result.isError).toBe(true)
    expect(textOf(result)).toStartWith("invalid_compose: ")
    expect(textOf(result)).toContain("no_such_option")
    expect(json(await client.callTool({ name: "list_stacks", arguments: {} })).map((x: any) => x.name)).not.toContain(
      "hm-mcp-broken",
    )
  }, 60_000)

  test("an engine error comes back as a tool error with the API's message", async () => {
    const result = await client.callTool({
      name: "container_action",
      arguments: { id: "hm-mcp-no-such", action: "start" },
    })
    expect(result.isError).toBe(true)
    expect(textOf(result)).toMatch(/^not_found: .*hm-mcp-no-such/)
  })

  test("a bad argument is a tool error with the route's own message, and the session goes on", async () => {
    const route = await (await fetch(`${svc.url}/api/containers/x/logs?tail=-3`)).json()
    const result = await client.callTool({ name: "container_logs", arguments: { id: "x", tail: -3 } })
    expect(result.isError).toBe(true)
    expect(textOf(result)).toBe(`${route.error.code}: ${route.error.message}`)
    expect((await client.listTools()).tools.length).toBeGreaterThan(0)
  })

  test("a foreign Host and a foreign Origin are refused with 403", async () => {
    const host = await postMcp(svc, { host: `rebound.example:${svc.port}` })
    expect(host.status).toBe(403)
    expect((await host.json()).error.code).toBe("host_not_allowed")
    const origin = await postMcp(svc, { origin: "http://evil.example" })
    expect(origin.status).toBe(403)
    expect((await origin.json()).error.code).toBe("origin_not_allowed")
  })

  test("DELETE ends a session", async () => {
    const other = await connect(svc)
    const id = other.transport.sessionId!
    await other.transport.terminateSession()
    const res = await postMcp(
      svc,
      { "mcp-session-id": id, "mcp-protocol-version": "2025-06-18" },
      JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
    )
    expect(res.status).toBe(404)
  })
})

describe("read-only mode with a short session time-to-live", () => {
  let svc: Service
  beforeAll(async () => {
    svc = await startService({ SVC_MCP: "read-only", SVC_MCP_SESSION_TTL: "1", DOCKER_HOST: engineHost() })
  })
  afterAll(() => svc.stop())

  test("only reading tools, and a change tool is unknown", async () => {
    const { client } = await connect(svc)
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name)).toContain("list_containers")
    expect(tools.filter((t) => !t.annotations?.readOnlyHint)).toEqual([])
    const result = await client
      .callTool({ name: "container_action", arguments: { id: "x", action: "stop" } })
      .catch((e) => e)
    expect(result.isError ?? result instanceof Error).toBe(true)
    await client.close()
  })

  test("an idle session expires", async () => {
    const { client, transport } = await connect(svc)
    await Bun.sleep(1500)
    const res = await postMcp(
      svc,
      { "mcp-session-id": transport.sessionId!, "mcp-protocol-version": "2025-06-18" },
      JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
    )
    expect(res.status).toBe(404)
    await client.close()
  })
})

test("without SVC_MCP, /mcp is 404", async () => {
  const svc = await startService({ DOCKER_HOST: engineHost() })
  try {
    expect((await postMcp(svc)).status).toBe(404)
  } finally {
    await svc.stop()
  }
})

test("an unknown mode stops the service at start with a clear message", async () => {
  const proc = Bun.spawn(["bun", join(import.meta.dir, "../../server.ts")], {
    env: { ...process.env, SVC_MCP: "maybe", SVC_ADDR: "127.0.0.1:0" },
    stderr: "pipe",
    stdout: "pipe",
  })
  expect(await proc.exited).toBe(2)
  expect(await new Response(proc.stderr).text()).toContain(
    'configuration error: SVC_MCP must be one of read-only, full, got "maybe"',
  )
})
