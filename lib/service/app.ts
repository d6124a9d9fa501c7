// The HTTP application: Elysia is the one router. It hosts every route of the manifest (WebSocket
// routes through its `.ws()`), and its hooks hold what applies to all of them: the browser-safety
// guard and CORS (onRequest), each route's params and body rules (its schemas and parse hook), the
// one error shape (onError), the request metrics (onAfterHandle and onError, when the answer is
// decided) and, when asked (tests, SVC_RESPONSE_DRIFT_LOG), the check of every answer against its
// route's `response` schema. /openapi serves the document built from the manifest (openapi.ts).
import { Elysia, ValidationError, type AnyElysia } from "elysia"
import * as v from "valibot"
import type { Ctx } from "./context.ts"
import { checkJsonDepth, readLimited } from "../http/body-limit.ts"
import { checkBody, checkRequest, corsHeaders, hasBody, type GuardOptions } from "../http/guard.ts"
import type { Handler, SocketHandler } from "./handler.ts"
import type { Peer, SocketSession } from "../http/socket.ts"
import { errorResponse, HttpError } from "../http/http-error.ts"
import { routeOf } from "../http/manifest.ts"
import type { RouteRow } from "./handler.ts"
import { openapiDocument } from "./openapi.ts"
import { admit } from "./access.ts"
import type { McpCaller } from "../mcp/caller.ts"
import { permits, type RouteRole } from "../auth/roles.ts"
import { drift, type Responses } from "../http/schemas.ts"
import { version } from "../data/build-info.ts"

const JSON_ONLY = ["application/json"]

interface StandardIssue { message: string; path?: readonly (PropertyKey | { key: PropertyKey })[] }
type StandardSchema = { "~standard": { validate(value: unknown): { issues?: readonly StandardIssue[] } | Promise<unknown> } }

/**
 * "body.n.k: Invalid type: ..." — the valibot issue re-read from the schema, since Elysia flattens its
 * path. A bad path parameter answers `invalid_<parameter>` (invalid_name, invalid_version).
 */
function validationError(error: ValidationError): Response {
  const schema = (error.validator as { schema?: StandardSchema } | undefined)?.schema
  const result = schema?.["~standard"]?.validate(error.value)
  const issue = result && !(result instanceof Promise) ? (result as { issues?: readonly StandardIssue[] }).issues?.[0] : undefined
  const keys = (issue?.path ?? []).map((p) => String(typeof p === "object" ? p.key : p))
  const message = issue?.message ?? (error.all as { summary?: string; message?: string }[])[0]?.summary ?? "invalid value"
  const code = error.type === "params" && keys[0] ? `invalid_${keys[0] === "*" ? "path" : keys[0]}` : "invalid_request"
  return errorResponse(400, code, `${keys.length ? `${error.type}.${keys.join(".")}` : error.type}: ${message}`)
}

function toResponse(error: unknown, code: string): Response {
  // A parse hook's own refusal (415, 413, invalid JSON) reaches here wrapped as Elysia's parse error.
  if (code === "PARSE" && (error as Error).cause instanceof HttpError) error = (error as Error).cause
  if (error instanceof HttpError) return errorResponse(error.status, error.code, error.message, error.extras)
  if (error instanceof ValidationError) return validationError(error)
  if (code === "PARSE") return errorResponse(400, "invalid_json", "the request body is not valid JSON")
  if (code === "NOT_FOUND") return errorResponse(404, "not_found", "no such route")
  if (["ENOSPC", "EDQUOT"].includes((error as NodeJS.ErrnoException)?.code ?? ""))
    return errorResponse(507, "insufficient_storage", "the data directory's disk is full; free space and retry (files are replaced whole, never half-written)")
  console.error("internal error:", error instanceof Error ? (error.stack ?? error.message) : error)
  return errorResponse(500, "internal", "internal error; see the service log")
}

/** A JSON route's body: the right content type (415), at most `limit` bytes (413), not nested too deep, valid JSON (400). */
function jsonBody(limit: number) {
  return async ({ request }: { request: Request }) => {
    checkBody(request, JSON_ONLY)
    if (!hasBody(request)) return undefined
    const text = await readLimited(request, limit)
    if (!text) return undefined
    checkJsonDepth(text)
    try {
      return JSON.parse(text)
    } catch {
      throw new HttpError(400, "invalid_json", "the request body is not valid JSON")
    }
  }
}

/** The Bun socket under Elysia's wrapper, as a session's peer: its `send` reports backpressure (-1). */
const socketPeer = (ws: { raw: Peer }): Peer => ws.raw

/** Elysia reads a text frame that looks like JSON (or a number) into a value: the session gets text back. */
const frame = (message: unknown): string | Uint8Array =>
  typeof message === "string" ? message : message instanceof Uint8Array ? message : ArrayBuffer.isView(message) ? new Uint8Array(message.buffer) : JSON.stringify(message)

/** A catch-all's schema names its parameter (`path`); Elysia calls it `*`. */
function paramsFor(schema: unknown, rest: string | undefined): unknown {
  if (!schema || !rest) return schema
  const { [rest]: value, ...entries } = (schema as v.ObjectSchema<v.ObjectEntries, undefined>).entries
  return v.object({ ...entries, "*": value! })
}

/** The JSON of an answer, whether the handler returned a value or a Response (read from a clone). */
async function answerOf(response: unknown, status: number): Promise<{ status: number; contentType: string | null; json: unknown }> {
  if (!(response instanceof Response)) return { status, contentType: "application/json", json: JSON.parse(JSON.stringify(response ?? null)) }
  const contentType = response.headers.get("content-type")
  return { status: response.status, contentType, json: contentType?.startsWith("application/json") ? await response.clone().json() : undefined }
}

type Check = (request: Request, route: string | undefined, response: unknown, status: number) => Promise<void>

/** Checks an answer against its route's `response` schema and tells `onDrift` what does not fit. */
function responseCheck(rows: readonly RouteRow[], onDrift: (message: string) => void): Check {
  const contracts = new Map<string, Responses>()
  for (const row of rows) if (row.mod.response) contracts.set(`${row.method === "WS" ? "GET" : row.method} ${routeOf(row.file).path}`, row.mod.response as Responses)
  return async (request, route, response, status) => {
    // A WebSocket upgrade answers no route's schema (a GET of the same path declares its own answer).
    if (request.headers.get("upgrade")?.toLowerCase() === "websocket") return
    const declared = route && (contracts.get(`${request.method} ${route}`) ?? contracts.get(`ALL ${route}`))
    if (!declared) return
    const answer = await answerOf(response, status)
    const why = drift(declared, answer.status, answer.contentType, () => answer.json)
    if (why) onDrift(`${request.method} ${new URL(request.url).pathname} answered ${answer.status} off its schema: ${why}`)
  }
}

/** What applies to every route: the guard and CORS, the one error shape, request metrics, the answer check. */
function hooks(app: AnyElysia, ctx: Ctx, check: Check | undefined, skipGuard: (request: Request) => boolean) {
  const guard: GuardOptions = { allowedHosts: ctx.config.allowedHosts, corsOrigins: ctx.config.corsOrigins, listenHost: ctx.config.addr.host }
  const started = new WeakMap<Request, number>()
  const observe = (request: Request, route: string | undefined, status: number) =>
    ctx.metrics.observeRequest(route || "unmatched", request.method, status, (performance.now() - (started.get(request) ?? performance.now())) / 1000)
  return app
    .onRequest(({ request, set }) => {
      started.set(request, performance.now())
      if (skipGuard(request)) return
      const cors = corsHeaders(request.headers.get("origin"), guard)
      Object.assign(set.headers, cors)
      checkRequest(request, guard)
      if (request.method === "OPTIONS") return new Response(null, { status: 204, headers: cors })
    })
    .onError(({ error, code, request, set, route, params }: any) => {
      const res = toResponse(error, String(code))
      observe(request, route, res.status)
      if (route) ctx.auth.record(request, route, params ?? {}, res.status)
      for (const [k, v] of Object.entries(set.headers)) if (k.startsWith("access-control-") || k === "vary") res.headers.set(k, String(v))
      return check ? check(request, route, res, res.status).then(() => res) : res
    })
    .onAfterHandle(({ request, route, set, response, params }: any) => {
      const status = response instanceof Response ? response.status : Number(set.status ?? 200)
      observe(request, route, status)
      // /mcp's own requests are not entries: each tool call is, with the request it makes.
      if (route !== "/mcp") ctx.auth.record(request, route, params ?? {}, status)
      if (check) return check(request, route, response, status).then(() => undefined)
    })
}

/** A stack's git webhook (handlers/api/stacks/[name]/git/webhook.post.ts), exempt from the browser guard. */
const GIT_WEBHOOK = /^\/api\/stacks\/[^/]+\/git\/webhook$/

/** The stack a route under /api/stacks/:name names. */
const stackOf = (path: string, params: Record<string, string> | undefined) => (path.startsWith("/api/stacks/:name") ? params?.name : undefined)

/**
 * A WebSocket session of a signed-in caller: its opening and closing go to the audit log, and it is
 * closed when its user is forgotten or its token revoked.
 */
function audited(ctx: Ctx, request: Request, session: SocketSession, write: (action: string) => void): SocketSession {
  const identity = ctx.auth.who(request)
  let release = () => {}
  return {
    ...session,
    open: (peer) => {
      write("ws.open")
      if (identity) release = ctx.auth.hold(identity, () => peer.close(1008, "signed out"))
      session.open(peer)
    },
    message: (data) => session.message(data),
    close: (code, reason) => {
      release()
      write("ws.close")
      session.close(code, reason)
    },
    ...(session.drain && { drain: () => session.drain!() }),
  }
}

const peerOf = (c: { server?: { requestIP(request: Request): { address: string } | null } | null; request: Request }) => c.server?.requestIP(c.request)?.address

/** One handler file on the app: its path, its schemas, its body rule, and the handler given the context. */
function mount(app: AnyElysia, row: RouteRow, ctx: Ctx): void {
  const { path, rest } = routeOf(row.file)
  const param = (params: Record<string, string>) => (rest ? { ...params, [rest]: params["*"]! } : params)
  const params = paramsFor(row.mod.params, rest)
  if (row.method === "WS") {
    const open = row.mod.default as SocketHandler
    const session = (ws: any) => ws.data.session as SocketSession
    app.ws(path, {
      params,
      query: row.mod.query,
      // Called once, before the upgrade (a route's beforeHandle would run twice for a WebSocket).
      async upgrade(c: any) {
        const peer = peerOf(c)
        await admit(ctx, row.mod, c.request, peer, stackOf(path, c.params))
        const opened = await open({ params: param(c.params), query: c.query, request: c.request, ctx, peer })
        c.session = ctx.auth.enabled ? audited(ctx, c.request, opened, (action) => ctx.auth.write(c.request, { action, method: "GET", route: path, target: c.params, status: 101, peer })) : opened
      },
      open: (ws: any) => session(ws).open(socketPeer(ws)),
      message: (ws: any, message: unknown) => session(ws).message(frame(message)),
      close: (ws: any, code?: number, reason?: string) => session(ws).close(code, reason),
      drain: (ws: any) => session(ws).drain?.(),
    } as any)
    return
  }
  const accepts = row.mod.accepts ?? JSON_ONLY
  const handler = row.mod.default as Handler
  // Who may call it, before its input is validated or its own body read (`transform` comes before both).
  const transform = row.mod.access || ctx.auth.enabled ? async (c: any) => admit(ctx, row.mod, c.request, peerOf(c), stackOf(path, c.params)) : undefined
  const parse = accepts === JSON_ONLY ? { parse: jsonBody(ctx.config.maxJsonBody) } : { parse: "none", beforeHandle: ({ request }: { request: Request }) => checkBody(request, accepts) }
  const run = (c: any) => handler({ params: param(c.params), query: c.query, body: c.body, request: c.request, ctx, set: c.set, peer: peerOf(c) })
  app.route(row.method, path, ctx.auth.enabled ? async (c: any) => held(ctx, c.request, await run(c)) : run, { body: row.mod.body, query: row.mod.query, params, transform, ...parse } as any)
}

/**
 * A signed-in caller's event stream, ended when its user is forgotten or its token revoked (as their
 * WebSockets are closed); any other answer as it is.
 */
function held(ctx: Ctx, request: Request, answer: unknown): unknown {
  const identity = ctx.auth.who(request)
  if (!(answer instanceof Response) || !answer.body || !identity || !answer.headers.get("content-type")?.startsWith("text/event-stream")) return answer
  const reader = answer.body.getReader()
  let release = () => {}
  let ended = false
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      release = ctx.auth.hold(identity, () => {
        ended = true
        controller.close()
        void reader.cancel().catch(() => {})
      })
    },
    async pull(controller) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }))
      if (ended) return
      if (done) {
        release()
        controller.close()
      } else controller.enqueue(value)
    },
    cancel(reason) {
      release()
      return reader.cancel(reason)
    },
  })
  return new Response(body, { status: answer.status, headers: answer.headers })
}

/**
 * Who calls /mcp while sign-in is on (401 without a credential): the tools their role allows, each
 * call made as them and audited with the tool's name, changing ones planned first unless their token
 * says otherwise.
 */
async function mcpCaller(ctx: Ctx, request: Request, peer: string | undefined, handle: (req: Request) => Promise<Response>): Promise<McpCaller> {
  const identity = await ctx.auth.identify(request, peer)
  if (!identity) throw new HttpError(401, "unauthorized", "/mcp needs Authorization: Bearer <API token> (or a session)")
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

/**
 * The app over `rows`, the route manifest (routes.gen.ts) that the entry point hands in. `pages`
 * are HTML imports served by Bun itself (the bundled UI), as static routes of the server.
 * `onDrift` is called with a description of every answer that does not fit its route's `response`
 * schema; without it nothing is checked.
 */
export function createApp(ctx: Ctx, rows: readonly RouteRow[], pages: Record<string, Bun.HTMLBundle> = {}, onDrift?: (message: string) => void) {
  const info = { title: "Harbormaster API", version, description: "Containers, stacks, images, volumes and a cluster of servers on one Docker engine each." }
  let document: unknown
  // /mcp answers to its own Host and Origin allowlists instead of the API's guard; its tools call this app.
  // The MCP SDK is loaded only when SVC_MCP names a mode.
  const mode = ctx.config.mcp
  const mcp = mode && import("../mcp/endpoint.ts").then((m) => m.mcpEndpoint(mode, rows, async (req) => app.handle(req), ctx.now))
  const isMcp = (request: Request) => !!mcp && new URL(request.url).pathname === "/mcp"
  // A git server calls a stack's webhook from its own host, proving itself with the stack's secret.
  const ownGuard = (request: Request) => isMcp(request) || (request.method === "POST" && GIT_WEBHOOK.test(new URL(request.url).pathname))

  const app = hooks(new Elysia({ serve: { routes: pages } }), ctx, onDrift && responseCheck(rows, onDrift), ownGuard)
  app.get("/openapi", ({ request }) => (document ??= openapiDocument(rows, info, new URL(request.url).origin, ctx.auth.enabled)))
  if (mcp) app.all("/mcp", async (c: any) => (await mcp).handle(c.request, ctx.auth.enabled ? await mcpCaller(ctx, c.request, peerOf(c), (req) => app.handle(req)) : undefined), { parse: "none" })
  for (const row of rows) mount(app, row, ctx)
  return app
}

export type App = ReturnType<typeof createApp>
