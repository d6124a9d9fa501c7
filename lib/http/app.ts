// The HTTP application: Elysia is the one router. It hosts every route of the manifest (WebSocket
// routes through its `.ws()`), and its hooks hold what applies to all of them: the browser-safety
// guard and CORS (onRequest), each route's body rules (its parse hook), the one error shape
// (onError) and the request metrics (onAfterHandle and onError, when the answer is decided).
import { openapi } from "@elysiajs/openapi"
import { toJsonSchema } from "@valibot/to-json-schema"
import { Elysia, ValidationError } from "elysia"
import type { Ctx } from "../service/context.ts"
import { readLimited } from "./body-limit.ts"
import { checkBody, checkRequest, corsHeaders, hasBody, type GuardOptions } from "./guard.ts"
import type { Handler, Peer, SocketHandler, SocketSession } from "./handler.ts"
import { errorResponse, HttpError } from "./http-error.ts"
import { routeOf, type Method } from "./manifest.ts"
import { version } from "../service/build-info.ts"

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
  // A parse hook's own refusal (415, 413, invalid JSON) reaches here wrapped as Elysia's parse error.
  if (code === "PARSE" && (error as Error).cause instanceof HttpError) error = (error as Error).cause
  if (error instanceof HttpError) return errorResponse(error.status, error.code, error.message)
  if (error instanceof ValidationError) return errorResponse(400, "invalid_request", validationMessage(error))
  if (code === "PARSE") return errorResponse(400, "invalid_json", "the request body is not valid JSON")
  if (code === "NOT_FOUND") return errorResponse(404, "not_found", "no such route")
  if (["ENOSPC", "EDQUOT"].includes((error as NodeJS.ErrnoException)?.code ?? ""))
    return errorResponse(507, "insufficient_storage", "the data directory's disk is full; free space and retry (files are replaced whole, never half-written)")
  console.error("internal error:", error instanceof Error ? (error.stack ?? error.message) : error)
  return errorResponse(500, "internal", "internal error; see the service log")
}

/** A JSON route's body: the right content type (415), at most `limit` bytes (413), valid JSON (400). */
function jsonBody(limit: number) {
  return async ({ request }: { request: Request }) => {
    checkBody(request, JSON_ONLY)
    if (!hasBody(request)) return undefined
    const text = await readLimited(request, limit)
    if (!text) return undefined
    try {
      return JSON.parse(text)
    } catch {
      throw new HttpError(400, "invalid_json", "the request body is not valid JSON")
    }
  }
}

/** The Bun socket under Elysia's wrapper, as a session's peer: its `send` reports backpressure (-1). */
const peerOf = (ws: { raw: Peer }): Peer => ws.raw

/** Elysia reads a text frame that looks like JSON (or a number) into a value: the session gets text back. */
const frame = (message: unknown): string | Uint8Array =>
  typeof message === "string" ? message : message instanceof Uint8Array ? message : ArrayBuffer.isView(message) ? new Uint8Array(message.buffer) : JSON.stringify(message)

/**
 * The app over `rows`, the route manifest (routes.gen.ts) that the entry point hands in. `pages`
 * are HTML imports served by Bun itself (the bundled UI), as static routes of the server.
 */
export function createApp(ctx: Ctx, rows: readonly RouteRow[], pages: Record<string, Bun.HTMLBundle> = {}) {
  const guard: GuardOptions = { allowedHosts: ctx.config.allowedHosts, corsOrigins: ctx.config.corsOrigins, listenHost: ctx.config.addr.host }
  const started = new WeakMap<Request, number>()
  const observe = (request: Request, route: string | undefined, status: number) =>
    ctx.metrics.observeRequest(route || "unmatched", request.method, status, (performance.now() - (started.get(request) ?? performance.now())) / 1000)
  // /mcp answers to its own Host and Origin allowlists instead of the API's guard; its tools call this app.
  // The MCP SDK is loaded only when SVC_MCP names a mode.
  const mode = ctx.config.mcp
  const mcp = mode && import("../mcp/endpoint.ts").then((m) => m.mcpEndpoint(mode, async (req) => app.handle(req), ctx.now))

  const app = new Elysia({ serve: { routes: pages } })
    .use(openapi({ path: "/openapi", specPath: "/openapi", provider: null, documentation: { info: { title: "Harbormaster API", version } }, mapJsonSchema: { valibot: toJsonSchema } }))
    .onRequest(({ request, set }) => {
      started.set(request, performance.now())
      if (mcp && new URL(request.url).pathname === "/mcp") return
      const cors = corsHeaders(request.headers.get("origin"), guard)
      Object.assign(set.headers, cors)
      checkRequest(request, guard)
      if (request.method === "OPTIONS") return new Response(null, { status: 204, headers: cors })
    })
    .onError(({ error, code, request, set, route }: any) => {
      const res = toResponse(error, String(code))
      observe(request, route, res.status)
      for (const [k, v] of Object.entries(set.headers)) if (k.startsWith("access-control-") || k === "vary") res.headers.set(k, String(v))
      return res
    })
    .onAfterHandle(({ request, route, set, response }: any) => void observe(request, route, response instanceof Response ? response.status : Number(set.status ?? 200)))

  if (mcp) app.all("/mcp", async ({ request }) => (await mcp).handle(request), { parse: "none" })

  for (const row of rows) {
    const { path, rest } = routeOf(row.file)
    const param = (params: Record<string, string>) => (rest ? { ...params, [rest]: params["*"]! } : params)
    if (row.method === "WS") {
      const open = row.mod.default as SocketHandler
      app.ws(path, {
        detail: row.mod.detail,
        // Called once, before the upgrade (a route's beforeHandle would run twice for a WebSocket).
        async upgrade(c: any) {
          c.session = await open({ params: param(c.params), query: c.query, request: c.request, ctx, peer: c.server?.requestIP(c.request)?.address })
        },
        open: (ws: any) => (ws.data.session as SocketSession).open(peerOf(ws)),
        message: (ws: any, message: unknown) => (ws.data.session as SocketSession).message(frame(message)),
        close: (ws: any) => (ws.data.session as SocketSession).close(),
        drain: (ws: any) => (ws.data.session as SocketSession).drain?.(),
      } as any)
      continue
    }
    const accepts = row.mod.accepts ?? JSON_ONLY
    const handler = row.mod.default as Handler
    app.route(
      row.method,
      path,
      (c: any) => handler({ params: param(c.params), query: c.query, body: c.body, request: c.request, ctx, set: c.set, peer: c.server?.requestIP(c.request)?.address }),
      {
        body: row.mod.body,
        query: row.mod.query,
        detail: row.mod.detail,
        ...(accepts === JSON_ONLY ? { parse: jsonBody(ctx.config.maxJsonBody) } : { parse: "none", beforeHandle: ({ request }: { request: Request }) => checkBody(request, accepts) }),
      } as any,
    )
  }
  return app
}

export type App = ReturnType<typeof createApp>
