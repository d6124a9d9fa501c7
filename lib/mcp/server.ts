// One MCP server per session: the tools of its mode, and each stack's compose file as a resource.
// Every tool and resource calls the API's own route in-process, so their answers and their errors
// are the API's. The tools are served by the SDK's low-level handlers, since their schemas are
// JSON Schema made from the routes' valibot schemas (./schemas.ts).
import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js"
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool as ToolDefinition } from "@modelcontextprotocol/sdk/types.js"
import { version } from "../data/build-info.ts"
import type { McpMode } from "./config.ts"
import { HttpError } from "../http/http-error.ts"
import { callApi, segment, type AppFetch } from "./api.ts"
import { checkArgs, type BoundTool } from "./schemas.ts"
import { apiCall } from "./tools.ts"

const YAML = "application/yaml"
const text = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value))

/**
 * Runs a tool: the API's answer as text, and as structured content when the route declares its
 * schema. A failure comes back as a tool error carrying the API's code and message.
 */
export async function runTool(fetch: AppFetch, tool: BoundTool, args: Record<string, unknown>, signal?: AbortSignal): Promise<CallToolResult> {
  try {
    checkArgs(tool, args)
    const answer = await callApi(fetch, apiCall(tool, args), signal)
    const content: CallToolResult["content"] = [{ type: "text", text: text(answer) }]
    if (!tool.outputSchema) return { content }
    return { content, structuredContent: (tool.wrap ? { [tool.wrap]: answer } : answer) as Record<string, unknown> }
  } catch (error) {
    const message = error instanceof HttpError ? `${error.code}: ${error.message}` : `internal: ${error instanceof Error ? error.message : String(error)}`
    return { isError: true, content: [{ type: "text", text: message }] }
  }
}

const definition = (tool: BoundTool): ToolDefinition => ({
  name: tool.name,
  description: tool.description,
  inputSchema: tool.inputSchema,
  ...(tool.outputSchema && { outputSchema: tool.outputSchema }),
  annotations: { readOnlyHint: !tool.changes, destructiveHint: tool.destructive ?? false },
})

/** `tools` are the tools of `mode`, bound to the app's routes. */
export function createMcpServer(mode: McpMode, tools: BoundTool[], fetch: AppFetch): McpServer {
  const server = new McpServer(
    { name: "harbormaster", version },
    { instructions: `Harbormaster manages this host's Docker engine: containers, compose stacks, images, volumes, networks and cluster nodes. Mode: ${mode}${mode === "read-only" ? " (tools only read)" : ""}.` },
  )
  server.server.registerCapabilities({ tools: {} })
  server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools.map(definition) }))
  server.server.setRequestHandler(CallToolRequestSchema, async ({ params }, extra) => {
    const tool = tools.find((t) => t.name === params.name)
    if (!tool) return { isError: true, content: [{ type: "text", text: `not_found: no tool ${params.name} in ${mode} mode` }] }
    return runTool(fetch, tool, params.arguments ?? {}, extra.signal)
  })
  server.registerResource(
    "stack-compose",
    new ResourceTemplate("stack://{name}/compose", {
      list: async () => {
        const stacks = (await callApi(fetch, { method: "GET", path: "/api/stacks" })) as { name: string; managed: boolean }[]
        return { resources: stacks.filter((s) => s.managed).map((s) => ({ uri: `stack://${s.name}/compose`, name: `${s.name} compose file`, mimeType: YAML })) }
      },
    }),
    { description: "The compose file of a stack managed by this server", mimeType: YAML },
    async (uri, { name }) => {
      const { content } = (await callApi(fetch, { method: "GET", path: `/api/stacks/${segment(String(name))}/compose` })) as { content: string }
      return { contents: [{ uri: uri.href, mimeType: YAML, text: content }] }
    },
  )
  return server
}
