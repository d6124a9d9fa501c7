// One MCP server per session: the tools of its mode, and each stack's compose file as a resource.
// Every tool and resource calls the API's own route in-process, so their answers and their errors
// are the API's. The tools are served by the SDK's low-level handlers, since their schemas are
// JSON Schema made from the routes' valibot schemas (./schemas.ts).
import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js"
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type CallToolResult,
  type Tool as ToolDefinition,
} from "@modelcontextprotocol/sdk/types.js"
import { version } from "../data/build-info.ts"
import type { McpMode } from "./config.ts"
import { isDomainError } from "../errors/errors.ts"
import { answerOf, callApi, segment, type AppFetch } from "./api.ts"
import { checkArgs, type BoundTool } from "./schemas.ts"
import { apiCall } from "./tools.ts"
import type { McpCaller } from "./caller.ts"

const YAML = "application/yaml"

/**
 * Runs a tool: the API's answer as text, and as structured content when the route declares its
 * schema. A failure comes back as a tool error carrying the API's code and message.
 */
export async function runTool(
  fetch: AppFetch,
  tool: BoundTool,
  args: Record<string, unknown>,
  signal?: AbortSignal,
): Promise<CallToolResult> {
  try {
    checkArgs(tool, args)
    // The text is the route's answer as it sent it: written once, not parsed and written again.
    const { value: answer, text } = await answerOf(fetch, apiCall(tool, args), signal)
    const content: CallToolResult["content"] = [{ type: "text", text }]
    if (!tool.outputSchema) return { content }
    return { content, structuredContent: (tool.wrap ? { [tool.wrap]: answer } : answer) as Record<string, unknown> }
  } catch (error) {
    const message = isDomainError(error)
      ? `${error.code}: ${error.message}`
      : `internal: ${error instanceof Error ? error.message : String(error)}`
    return { isError: true, content: [{ type: "text", text: message }] }
  }
}

const CONFIRM = {
  type: "boolean",
  description:
    "true to act; without it the tool answers with its plan (what it would call, and a dry run's answer where the route has one) and changes nothing",
}

/** A call that asks only for a dry run (a tool whose route has one, and dry_run not false) changes nothing. */
const dryRun = (tool: BoundTool, args: Record<string, unknown>) =>
  tool.defaults?.dry_run !== undefined && (args.dry_run ?? tool.defaults.dry_run) !== false

/** A tool as tools/list shows it; one that plans first has no output schema, since a plan is its answer too. */
function definition(tool: BoundTool, confirm: boolean): ToolDefinition {
  const planned = confirm && tool.changes
  return {
    name: tool.name,
    description: planned
      ? `${tool.description} Answers with its plan unless called with confirm: true.`
      : tool.description,
    inputSchema: planned
      ? { ...tool.inputSchema, properties: { ...tool.inputSchema.properties, confirm: CONFIRM } }
      : tool.inputSchema,
    ...(tool.outputSchema && !planned && { outputSchema: tool.outputSchema }),
    annotations: { readOnlyHint: !tool.changes, destructiveHint: tool.destructive ?? false },
  }
}

/**
 * What a changing tool would do, without doing it: the route it calls with what, and for a route
 * with a dry run, the dry run's answer. Its arguments are checked as the call would check them.
 */
async function plan(
  fetch: AppFetch,
  tool: BoundTool,
  args: Record<string, unknown>,
  signal?: AbortSignal,
): Promise<CallToolResult> {
  try {
    checkArgs(tool, args)
    const { method, path, query, body } = apiCall(tool, args)
    const rehearsal =
      tool.defaults?.dry_run !== undefined
        ? { dry_run: await callApi(fetch, apiCall(tool, { ...args, dry_run: true }), signal) }
        : {}
    const answer = {
      plan: {
        tool: tool.name,
        method,
        path,
        ...(query && Object.keys(query).length ? { query } : {}),
        ...(body !== undefined ? { body } : {}),
        ...rehearsal,
      },
      confirm: "nothing changed: call again with the same arguments and confirm: true to act",
    }
    return { content: [{ type: "text", text: JSON.stringify(answer) }] }
  } catch (error) {
    const message = isDomainError(error)
      ? `${error.code}: ${error.message}`
      : `internal: ${error instanceof Error ? error.message : String(error)}`
    return { isError: true, content: [{ type: "text", text: message }] }
  }
}

/**
 * `tools` are the tools of `mode`, bound to the app's routes. With a `caller` (sign-in on), only the
 * tools its role allows are offered, each calls the app as the caller, and a changing one answers
 * with its plan until it is called with `confirm: true` (unless the caller's token turned that off).
 */
export function createMcpServer(mode: McpMode, all: BoundTool[], fetch: AppFetch, caller?: McpCaller): McpServer {
  const tools = caller ? all.filter((t) => caller.allows(t.schemas.role)) : all
  const confirm = caller?.confirm ?? false
  const server = new McpServer(
    { name: "harbormaster", version },
    {
      instructions: `Harbormaster manages this host's Docker engine: containers, compose stacks, images, volumes, networks and cluster nodes. Mode: ${mode}${mode === "read-only" ? " (tools only read)" : ""}.`,
    },
  )
  server.server.registerCapabilities({ tools: {} })
  server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools.map((t) => definition(t, confirm)) }))
  server.server.setRequestHandler(CallToolRequestSchema, async ({ params }, extra) => {
    const tool = tools.find((t) => t.name === params.name)
    if (!tool)
      return {
        isError: true,
        content: [
          { type: "text", text: `not_found: no tool ${params.name} in ${mode} mode${caller ? " for this role" : ""}` },
        ],
      }
    if (!caller) return runTool(fetch, tool, params.arguments ?? {}, extra.signal)
    const { confirm: confirmed, ...args } = params.arguments ?? {}
    if (confirm && tool.changes && confirmed !== true && !dryRun(tool, args)) {
      caller.planned(tool.name)
      return plan(caller.fetchFor(tool.name), tool, args, extra.signal)
    }
    return runTool(caller.fetchFor(tool.name), tool, args, extra.signal)
  })
  // The resources read the API as the caller too (while sign-in is on): a caller limited to some
  // stacks lists and reads theirs only.
  const read = caller ? caller.fetchFor("stack-compose") : fetch
  server.registerResource(
    "stack-compose",
    new ResourceTemplate("stack://{name}/compose", {
      list: async () => {
        const stacks = (await callApi(read, { method: "GET", path: "/api/stacks" })) as {
          name: string
          managed: boolean
        }[]
        return {
          resources: stacks
            .filter((s) => s.managed)
            .map((s) => ({ uri: `stack://${s.name}/compose`, name: `${s.name} compose file`, mimeType: YAML })),
        }
      },
    }),
    { description: "The compose file of a stack managed by this server", mimeType: YAML },
    async (uri, { name }) => {
      const { content } = (await callApi(read, {
        method: "GET",
        path: `/api/stacks/${segment(String(name))}/compose`,
      })) as { content: string }
      return { contents: [{ uri: uri.href, mimeType: YAML, text: content }] }
    },
  )
  return server
}
