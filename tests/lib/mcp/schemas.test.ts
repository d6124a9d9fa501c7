import { afterEach, expect, test } from "bun:test"
import { toJsonSchema } from "@valibot/to-json-schema"
import * as v from "valibot"
import { loadRoutes } from "#lib/service/handler.ts"
import { bindTools, checkArgs } from "#lib/mcp/schemas.ts"
import { tools, type Tool } from "#lib/mcp/tools.ts"
import logs from "../../../handlers/api/containers/[id]/logs.get.ts"
import deploy from "../../../handlers/api/stacks/index.post.ts"
import stacks from "../../../handlers/api/stacks/index.get.ts"
import stack from "../../../handlers/api/stacks/[name].get.ts"
import setEnv from "../../../handlers/api/stacks/[name]/env.put.ts"
import { routes } from "../../../routes.gen.ts"
import { testApp, type TestApp } from "../../support/app.ts"

const rows = await loadRoutes(routes)
const bound = bindTools(tools, rows)
const tool = (name: string) => bound.find((t) => t.name === name)!
const json = (schema: unknown, typeMode: "input" | "output" = "input") => {
  const { $schema: _, ...rest } = toJsonSchema(schema as v.GenericSchema, { typeMode, errorMode: "ignore" })
  return rest
}

let t: TestApp | undefined
afterEach(() => t?.close())

test("every tool finds its route among the app's, and an unserved route is refused at start", () => {
  expect(bound.map((b) => b.name)).toEqual(tools.map((x) => x.name))
  const ghost: Tool = { name: "ghost", route: "GET /api/ghost/:id", description: "a route nobody serves" }
  expect(() => bindTools([ghost], rows)).toThrow("tool ghost: no route GET /api/ghost/:id")
})

test("a tool's arguments are its route's query and body, as JSON Schema", () => {
  expect(tool("container_logs").inputSchema.properties!.tail).toEqual(json(logs.query!.entries.tail))
  expect(tool("container_logs").inputSchema.properties).not.toHaveProperty("follow")
  const { name: _, ...deployArgs } = tool("deploy_stack").inputSchema.properties!
  const { name: __, ...deployBody } = json(deploy.body!).properties!
  expect(deployArgs).toEqual(deployBody as Record<string, object>)
  expect(tool("deploy_stack").inputSchema.required).toEqual(json(deploy.body!).required)
  expect(tool("set_stack_env").inputSchema.properties!.env).toEqual(json(setEnv.body!))
  expect(tool("set_stack_env").inputSchema.required).toEqual(["name", "env"])
})

test("a field added to a route's body reaches its tool", () => {
  const row = rows.find((r) => r.file === "handlers/api/stacks/[name]/apply.post.ts")!
  const body = v.object({ watch: v.optional(v.number()), note: v.pipe(v.string(), v.description("why")) })
  const [apply] = bindTools([tools.find((x) => x.name === "apply_stack")!], [{ ...row, mod: { ...row.mod, body } }])
  expect(apply!.inputSchema.properties!.note).toEqual({ type: "string", description: "why" })
  expect(apply!.inputSchema.required).toEqual(["name", "note"])
})

test("a tool's default is shown in its schema and sent when the argument is left out", () => {
  expect(tool("copy_stack").inputSchema.properties!.dry_run).toMatchObject({ type: "boolean", default: true })
})

test("a bad argument is refused with the message the route gives for it", async () => {
  t = await testApp()
  const route = await (await t.call("GET", "/api/containers/web/logs?tail=-3")).json()
  expect(() => checkArgs(tool("container_logs"), { id: "web", tail: -3 })).toThrow(route.error.message)
  const body = await (await t.call("POST", "/api/containers/web/action", { action: "explode" })).json()
  expect(() => checkArgs(tool("container_action"), { id: "web", action: "explode" })).toThrow(body.error.message)
  const env = await (await t.call("PUT", "/api/stacks/web/env", [{ key: "1A", value: "x" }])).json()
  expect(() => checkArgs(tool("set_stack_env"), { name: "web", env: [{ key: "1A", value: "x" }] })).toThrow(
    env.error.message,
  )
})

test("query arguments are checked as the strings the URL carries", () => {
  expect(() => checkArgs(tool("container_logs"), { id: "web", tail: 10 })).not.toThrow()
  expect(() => checkArgs(tool("list_containers"), { all: true })).not.toThrow()
  expect(() => checkArgs(tool("list_containers"), { all: "maybe" })).toThrow("query.all: must be true or false")
})

test("a missing path parameter is refused before any call", () => {
  expect(() => checkArgs(tool("inspect_stack"), {})).toThrow(/^params\.name: /)
})

test("a tool's answer schema is its route's response; a list and an event stream's messages come as {items}", () => {
  expect(tool("inspect_stack").outputSchema as object).toEqual(json(stack.response, "output"))
  expect(tool("inspect_stack").wrap).toBeUndefined()
  expect(tool("list_stacks").outputSchema).toEqual({
    type: "object",
    properties: { items: json(stacks.response, "output") },
    required: ["items"],
  })
  expect(tool("list_stacks").description).toEndWith("Its structured answer carries the list as {items}.")
  expect(tool("container_logs").outputSchema!.properties!.items).toEqual(
    json(v.array(logs.response.message!), "output"),
  )
})
