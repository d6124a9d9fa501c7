// /mcp: the Model Context Protocol over streamable HTTP (Request in, Response out). The endpoint's
// own Host and Origin allowlists run first; then each request goes to its session's transport, or
// opens a session when it carries no Mcp-Session-Id.
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"
import type { McpConfig } from "./config.ts"
import type { AppFetch } from "./api.ts"
import type { McpCaller } from "./caller.ts"
import { domainErrorResponse } from "../http/http-error.ts"
import { mcpCorsHeaders, mcpRefusal } from "./guard.ts"
import { createMcpServer } from "./server.ts"
import { bindTools, type RouteRow } from "./schemas.ts"
import { SessionStore } from "./sessions.ts"
import { toolsFor } from "./tools.ts"

/** Largest JSON-RPC body /mcp reads (413 above it). */
export const MCP_MAX_BODY = 1024 * 1024

export interface McpEndpoint {
  /** One request; `caller` is who sent it while sign-in is on. */
  handle(req: Request, caller?: McpCaller): Promise<Response>
  /** How many sessions are live. */
  readonly sessions: { readonly size: number }
}

interface Session {
  transport: WebStandardStreamableHTTPServerTransport
  close(): Promise<void>
  /** The caller that opened it: no one else may use it. */
  owner: string | undefined
}

const sessionNotFound = () =>
  Response.json(
    {
      jsonrpc: "2.0",
      error: { code: -32001, message: "Session not found (it ended or expired); start a new one" },
      id: null,
    },
    { status: 404 },
  )

/** `rows` are the app's routes and `fetch` the app itself, which the tools call; `now` is the clock that ages sessions. */
export function mcpEndpoint(
  config: McpConfig,
  rows: readonly RouteRow[],
  fetch: AppFetch,
  now: () => number,
): McpEndpoint {
  const sessions = new SessionStore<Session>(config.sessionTtl * 1000, now)
  const tools = bindTools(toolsFor(config.mode), rows)

  async function open(req: Request, caller: McpCaller | undefined): Promise<Response> {
    const server = createMcpServer(config.mode, tools, fetch, caller)
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      maxRequestBodySize: MCP_MAX_BODY,
      onsessioninitialized: (id) => sessions.add(id, { transport, close: () => server.close(), owner: caller?.id }),
      onsessionclosed: (id) => sessions.delete(id),
    })
    await server.connect(transport)
    const res = await transport.handleRequest(req)
    if (!transport.sessionId) await server.close()
    return res
  }

  return {
    sessions,
    async handle(req, caller) {
      const refused = mcpRefusal(req, config)
      if (refused) return domainErrorResponse(refused)
      const cors = mcpCorsHeaders(req.headers.get("origin"))
      if (req.method === "OPTIONS") return new Response(null, { status: 204, headers: cors })
      const id = req.headers.get("mcp-session-id")
      const found = id ? sessions.get(id) : undefined
      const session = found?.owner === caller?.id ? found : undefined
      const res = id ? ((await session?.transport.handleRequest(req)) ?? sessionNotFound()) : await open(req, caller)
      for (const [k, v] of Object.entries(cors)) res.headers.set(k, v)
      return res
    },
  }
}
