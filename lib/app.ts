// The HTTP application: Elysia hosts the routes of the manifest; browser-safety checks, WebSocket
// upgrades and the error shape are decided here, in one place.
import { openapi } from "@elysiajs/openapi"
import { toJsonSchema } from "@valibot/to-json-schema"
import { Elysia, ValidationError } from "elysia"
import type { Server, ServerWebSocket, WebSocketHandler } from "bun"
import type { Ctx } from "./context.ts"
import { limitBody } from "./body-limit.ts"
import { checkBody, checkRequest, corsHeaders, type GuardOptions } from "./guard.ts"
import type { Handler, SocketHandler, SocketSession } from "./handler.ts"
import { errorResponse, HttpError } from "./http-error.ts"
import { compilePath, routeOf, type Method } from "./manifest.ts"
import { routes as manifest } from "./routes.gen.ts"
import { version } from "./build-info.ts"

export interface RouteModule {
  default: unknown
  body?: unknown
  query?: unknown
  detail?: Record<string, unknown>
  accepts?: string[]
}
export interface RouteRow {
  method: Method
  file: string
  mod: RouteModule
}

const JSON_ONLY = ["application/json"]

export interface App {
  fetch(req: Request, server?: Server<SocketData>): Promise<Response | undefined>
  websocket: WebSocketHandler<SocketData>
}
export interface SocketData {
  session: SocketSession
}

interface StandardIssue { message: string; path?: readonly (PropertyKey | { key: PropertyKey })[] }
type StandardSchema = { "~standard": { validate(value: unknown): { issues?: readonly StandardIssue[] } | Promise<unknown> } }

/** "body.n.k: Invalid type: ..." — the valibot issue re-read from the schema, since Elysia flattens its path. */
function validationMessage(error: ValidationError): string {
  const schema = (error.validator as { schema?: StandardSchema } | undefined)?.schema
  const result = schema?.["~standard"]?.validate(error.value)
  const issue = result && !(result instanceof Promise) ? (result as { issues?: readonly StandardIssue[] }).issues?.[0] : undefined
  const path = (issue?.path ?? []).map((p) => String(typeof p === "object" ? p.key : p)).join(".")
  const message = issue?.message ?? (error.all as { summary?: string; message?: string }[])[0]?.summary ?? "invalid value"
  return `${path ? `${error.type}.${path}` : error.type}: ${message}`
}

function toResponse(error: unknown, code: string): Response {
  if (error instanceof HttpError) return errorResponse(error.status, error.code, error.message)
  if (error instanceof ValidationError) return errorResponse(400, "invalid_request", validationMessage(error))
  if (code === "PARSE") return errorResponse(400, "invalid_json", "the request body is not valid JSON")
  if (code === "NOT_FOUND") return errorResponse(404, "not_found", "no such route")
  if (["ENOSPC", "EDQUOT"].includes((error as NodeJS.ErrnoException)?.code ?? ""))
    return errorResponse(507, "insufficient_storage", "the data directory's disk is full; free space and retry (files are replaced whole, never half-written)")
  console.error("internal error:", error instanceof Error ? (error.stack ?? error.message) : error)
  return errorResponse(500, "internal", "internal error; see the service log")
}

export function createApp(ctx: Ctx, rows: readonly RouteRow[] = manifest as unknown as RouteRow[]): App {
  const peers = new WeakMap<Request, string>()
  const routePatterns = new WeakMap<Request, string>()
  const guard: GuardOptions = { allowedHosts: ctx.config.allowedHosts, corsOrigins: ctx.config.corsOrigins, listenHost: ctx.config.addr.host }
  const bodyTypes: { method: Method; match: ReturnType<typeof compilePath>; accepts: string[] }[] = []
  const sockets: { match: ReturnType<typeof compilePath>; handler: SocketHandler }[] = []

  const app = new Elysia()
    .use(openapi({ path: "/openapi", specPath: "/openapi", provider: null, documentation: { info: { title: "Harbormaster API", version } }, mapJsonSchema: { valibot: toJsonSchema } }))
    .onError(({ error, code }) => toResponse(error, String(code)))
    .onTransform(({ request, route }) => void routePatterns.set(request, route))

  for (const row of rows) {
    const { path, rest } = routeOf(row.file)
    const match = compilePath(path, rest)
    if (row.method === "WS") {
      sockets.push({ match, handler: row.mod.default as SocketHandler })
      continue
    }
    const accepts = row.mod.accepts ?? JSON_ONLY
    if (accepts !== JSON_ONLY) bodyTypes.push({ method: row.method, match, accepts })
    const handler = row.mod.default as Handler
    app.route(
      row.method,
      path,
      (c: any) => {
        const params = rest ? { ...c.params, [rest]: c.params["*"] } : c.params
        return handler({ params, query: c.query, body: c.body, request: c.request, ctx, set: c.set, peer: peers.get(c.request) })
      },
      { body: row.mod.body, query: row.mod.query, detail: row.mod.detail, ...(accepts.includes("application/json") ? {} : { parse: "none" }) } as any,
    )
  }

  const acceptsOf = (method: string, pathname: string) =>
    bodyTypes.find((b) => (b.method === "ALL" || b.method === method) && b.match(pathname))?.accepts ?? JSON_ONLY

  async function upgrade(req: Request, pathname: string, server?: Server<SocketData>): Promise<Response | undefined> {
    for (const s of sockets) {
      const params = s.match(pathname)
      if (!params) continue
      if (!server) throw new HttpError(400, "upgrade_unavailable", "WebSocket upgrades need the running server")
      const session = await s.handler({ params, query: Object.fromEntries(new URL(req.url).searchParams), request: req, ctx, peer: peers.get(req) })
      if (server.upgrade(req, { data: { session } })) return undefined
      session.close()
      throw new HttpError(400, "upgrade_failed", "the WebSocket upgrade failed")
    }
    throw new HttpError(404, "not_found", "no WebSocket route here")
  }

  // /mcp answers to its own Host and Origin allowlists instead of the API's guard; its tools call this app.
  // The MCP SDK is loaded only when SVC_MCP names a mode.
  const mode = ctx.config.mcp
  const mcp = mode && import("./mcp/endpoint.ts").then((m) => m.mcpEndpoint(mode, async (req) => (await served.fetch(req))!, ctx.now))

  const served: App = {
    async fetch(req, server) {
      const pathname = new URL(req.url).pathname
      if (mcp && pathname === "/mcp") return (await mcp).handle(req)
      const origin = req.headers.get("origin")
      const cors = corsHeaders(origin, guard)
      try {
        checkRequest(req, guard)
        if (req.method === "OPTIONS") return new Response(null, { status: 204, headers: cors })
        const accepts = acceptsOf(req.method, pathname)
        checkBody(req, accepts)
        const ip = server?.requestIP(req)?.address
        if (accepts === JSON_ONLY) req = await limitBody(req, ctx.config.maxJsonBody)
        if (ip) peers.set(req, ip)
        if (req.headers.get("upgrade")?.toLowerCase() === "websocket") return await upgrade(req, pathname, server)
        const started = performance.now()
        const res = await app.handle(req)
        ctx.metrics.observeRequest(routePatterns.get(req) ?? "unmatched", req.method, res.status, (performance.now() - started) / 1000)
        for (const [k, v] of Object.entries(cors)) res.headers.set(k, v)
        return res
      } catch (error) {
        return toResponse(error, "")
      }
    },
    websocket: {
      open: (ws: ServerWebSocket<SocketData>) => ws.data.session.open(ws),
      message: (ws: ServerWebSocket<SocketData>, data) => ws.data.session.message(typeof data === "string" ? data : new Uint8Array(data)),
      close: (ws: ServerWebSocket<SocketData>) => ws.data.session.close(),
      drain: (ws: ServerWebSocket<SocketData>) => ws.data.session.drain?.(),
    },
  }
  return served
}
