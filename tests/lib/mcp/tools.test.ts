import { expect, test } from "bun:test"
import { apiCall, tools, toolsFor } from "#lib/mcp/tools.ts"

test("tool names are unique and every tool is described", () => {
  expect(new Set(tools.map((t) => t.name)).size).toBe(tools.length)
  for (const t of tools) expect(t.description.length).toBeGreaterThan(20)
})

test("read-only mode offers no tool that changes anything", () => {
  expect(toolsFor("read-only").filter((t) => t.changes)).toEqual([])
  expect(toolsFor("full").length).toBeGreaterThan(toolsFor("read-only").length)
})

test("a stack file's path goes into the catch-all encoded, its content into the body", () => {
  const write = tools.find((t) => t.name === "write_stack_file")!
  expect(apiCall(write, { name: "web", path: "conf/site.conf", content: "x" })).toEqual({
    method: "PUT",
    path: "/api/stacks/web/files/conf%2Fsite.conf",
    query: undefined,
    body: { content: "x" },
  })
})

test("path parameters are encoded; other arguments go to the query of a GET and the body of a POST", () => {
  const logs = tools.find((t) => t.name === "container_logs")!
  expect(apiCall(logs, { id: "a/b", tail: 5 })).toEqual({
    method: "GET",
    path: "/api/containers/a%2Fb/logs",
    query: { tail: 5, follow: "false" },
  })
  const action = tools.find((t) => t.name === "container_action")!
  expect(apiCall(action, { id: "web", action: "stop" })).toEqual({
    method: "POST",
    path: "/api/containers/web/action",
    query: undefined,
    body: { action: "stop" },
  })
})

test("a tool whose route takes a list sends that argument as the whole body", () => {
  const setEnv = tools.find((t) => t.name === "set_stack_env")!
  const env = [{ key: "A", value: null }]
  expect(apiCall(setEnv, { name: "web", env })).toEqual({
    method: "PUT",
    path: "/api/stacks/web/env",
    query: undefined,
    body: env,
  })
})

test("a tool's default is sent unless the argument is given", () => {
  const copy = tools.find((t) => t.name === "copy_stack")!
  expect(apiCall(copy, { name: "web", as: "web2" }).body).toEqual({ dry_run: true, as: "web2" })
  expect(apiCall(copy, { name: "web", dry_run: false }).body).toEqual({ dry_run: false })
})

test("the swarm's tools: reading in read-only mode, scaling and node changes in full mode only, join tokens never", () => {
  const names = (mode: "read-only" | "full") =>
    toolsFor(mode)
      .map((t) => t.name)
      .filter((n) => n.includes("swarm"))
  expect(names("read-only").sort()).toEqual([
    "inspect_swarm_service",
    "list_swarm_nodes",
    "list_swarm_services",
    "swarm_service_logs",
    "swarm_status",
  ])
  expect(names("full")).toContain("scale_swarm_service")
  expect(names("full")).toContain("update_swarm_node")
  expect(tools.filter((t) => /join-tokens|\/swarm\/(init|join|leave)/.test(t.route))).toEqual([])
  expect(apiCall(tools.find((t) => t.name === "scale_swarm_service")!, { id: "web", replicas: 3 })).toEqual({
    method: "POST",
    path: "/api/swarm/services/web/scale",
    query: undefined,
    body: { replicas: 3 },
  })
})
