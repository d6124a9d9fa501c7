// /mcp on the app: the MCP endpoint (lib/mcp) with its own Host and Origin allowlists instead of the
// browser guard, and while sign-in is on its own front door: who calls it may call the tools their
// role allows, each tool's call made in-process as them and audited with the tool's name. /mcp's own
// requests are not audit entries (each tool call is), and the MCP SDK is loaded by its first call.
import type { Elysia } from "elysia"
import type { Ctx } from "./context.ts"
import type { RouteRow } from "./handler.ts"
import type { McpCaller } from "../mcp/caller.ts"
import type { McpConfig } from "../mcp/config.ts"
import { permits, type RouteRole } from "../auth/roles.ts"
import { unauthenticated } from "../errors/errors.ts"

type Fetch = (request: Request) => Promise<Response>

/** Who calls /mcp while sign-in is on (401 without a credential): the tools their role allows, changing ones planned first unless their token says otherwise. */
async function mcpCaller(ctx: Ctx, request: Request, peer: string | undefined, handle: Fetch): Promise<McpCaller> {
  const identity = await ctx.auth.identify(request, peer)
  if (!identity) throw unauthenticated("/mcp needs Authorization: Bearer <API token> (or a session)")
  return {
    id: identity.token ?? `${identity.source}:${identity.user}`,
    allows: (role) => permits(identity.role, (role ?? "admin") as RouteRole),
    confirm: identity.mcpConfirm !== false,
    fetchFor: (tool) => (req) => {
      ctx.auth.mark(req, { identity, tool, action: "mcp.tool" })
      return handle(req)
    },
    planned: (tool) => {
      ctx.auth.mark(request, { tool, action: "mcp.plan" })
      ctx.auth.write(request, { method: request.method, route: "/mcp", target: {}, status: 200 })
    },
  }
}

/** Mounts /mcp (every method) on `app`; its tools call the routes of `rows` through `handle`, and `hold` holds a signed-in caller's event stream. */
export function mcpRoute(
  app: Elysia<any, any, any, any, any, any, any>,
  ctx: Ctx,
  config: McpConfig,
  rows: () => Promise<RouteRow[]>,
  handle: Fetch,
  hold: (request: Request, answer: Response) => unknown,
): void {
  let endpoint: Promise<import("../mcp/endpoint.ts").McpEndpoint> | undefined
  const load = async () => (await import("../mcp/endpoint.ts")).mcpEndpoint(config, await rows(), handle, ctx.now)
  app.all(
    "/mcp",
    async ({ request, server }) => {
      const peer = server?.requestIP(request)?.address
      if (!ctx.auth.enabled) return (await (endpoint ??= load())).handle(request)
      const caller = await mcpCaller(ctx, request, peer, handle)
      return hold(request, await (await (endpoint ??= load())).handle(request, caller))
    },
    { parse: () => null },
  )
}
