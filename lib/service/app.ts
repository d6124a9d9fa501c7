// The HTTP application: one route table (router.ts) for every route of the manifest, served by
// Bun.serve (WebSocket routes through its `websocket` handlers, the bundled UI's pages as its static
// routes). Every request goes the same way: the browser-safety guard and CORS, the route, who may
// call it (access.ts, with the role and access the manifest copied from the handler file), the
// handler file loaded (once, by the route's first request), its params, query and body checked
// against the file's valibot schemas, the handler, the one error shape, the request metrics and,
// when asked (tests, SVC_RESPONSE_DRIFT_LOG), the check of the answer against its route's `response`
// schema. /openapi serves the document built from the manifest (openapi.ts), built on its first request.
import type { Ctx } from "./context.ts"
import { checkJsonDepth, readLimited } from "../http/body-limit.ts"
import { checkBody, checkRequest, corsHeaders, hasBody, type GuardOptions } from "../http/guard.ts"
import type { SocketSession } from "../http/socket.ts"
import { domainErrorResponse, errorResponse, HttpError } from "../http/http-error.ts"
import { DomainError } from "../errors/errors.ts"
import { loadRoutes, type RouteDef, type RouteEntry } from "./handler.ts"
import { admit } from "./access.ts"
import { heldSocket, heldStream } from "../auth/held.ts"
import type { McpCaller } from "../mcp/caller.ts"
import { permits, type RouteRole } from "../auth/roles.ts"
import type { Responses } from "../http/schemas.ts"
import { version } from "../data/build-info.ts"
import { Router } from "./router.ts"

const JSON_ONLY = ["application/json"]

interface StandardIssue {
  message: string
  path?: readonly (PropertyKey | { key: PropertyKey })[]
}
type StandardResult = { value?: unknown; issues?: readonly StandardIssue[] }
type StandardSchema = { "~standard": { validate(value: unknown): StandardResult | Promise<StandardResult> } }

/**
 * What `schema` makes of a request's `part`, or the 400 naming the first thing wrong with it:
 * "body.n.k: Invalid type: ...". A bad path parameter is `invalid_<parameter>` (invalid_name, invalid_path).
 */
async function validated(part: "params" | "query" | "body", schema: unknown, value: unknown): Promise<any> {
  if (!schema) return value
  const result = await (schema as StandardSchema)["~standard"].validate(value)
  if (!result.issues) return result.value
  const issue = result.issues[0]
  const keys = (issue?.path ?? []).map((p) => String(typeof p === "object" ? p.key : p))
  const code = part === "params" && keys[0] ? `invalid_${keys[0]}` : "invalid_request"
  throw new HttpError(
    400,
    code,
    `${keys.length ? `${part}.${keys.join(".")}` : part}: ${issue?.message ?? "invalid value"}`,
  )
}

function toResponse(error: unknown): Response {
  if (error instanceof HttpError) return errorResponse(error.status, error.code, error.message, error.extras)
  if (error instanceof DomainError) return domainErrorResponse(error)
  if (["ENOSPC", "EDQUOT"].includes((error as NodeJS.ErrnoException)?.code ?? ""))
    return errorResponse(
      507,
      "insufficient_storage",
      "the data directory's disk is full; free space and retry (files are replaced whole, never half-written)",
    )
  console.error("internal error:", error instanceof Error ? (error.stack ?? error.message) : error)
  return errorResponse(500, "internal", "internal error; see the service log")
}

/** A JSON route's body: the right content type (415), at most `limit` bytes (413), not nested too deep, valid JSON (400). */
async function jsonBody(request: Request, limit: number): Promise<unknown> {
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

/** The query string as an object; a name given twice has its values in an array. */
function queryOf(url: URL): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {}
  for (const [name, value] of url.searchParams) {
    const had = query[name]
    query[name] = had === undefined ? value : [...(Array.isArray(had) ? had : [had]), value]
  }
  return query
}

/** A handler's status and headers. */
type Set = { status?: number | string; headers: Record<string, string | number> }

const headersOf = (set: Set) => Object.fromEntries(Object.entries(set.headers).map(([k, v]) => [k, String(v)]))

/** A handler's answer as a Response: a value as JSON, a Response with the headers `set` adds (CORS, a cookie). */
function toHttp(answer: unknown, set: Set): Response {
  const status = Number(set.status ?? 200)
  if (answer instanceof Response) {
    if (!Object.keys(set.headers).length && status === 200) return answer
    const headers = new Headers(answer.headers)
    for (const [k, v] of Object.entries(headersOf(set)))
      if (k === "set-cookie") headers.append(k, v)
      else if (!headers.has(k)) headers.set(k, v)
    return new Response(answer.body, {
      status: answer.status === 200 ? status : answer.status,
      statusText: answer.statusText,
      headers,
    })
  }
  if (answer === undefined || answer === null) return new Response(null, { status, headers: headersOf(set) })
  if (typeof answer !== "object") return new Response(String(answer), { status, headers: headersOf(set) })
  return Response.json(answer, { status, headers: headersOf(set) })
}

type Check = (request: Request, response: Response, declared: Responses | undefined) => Promise<void>

/** Checks an answer against its route's `response` schema and tells `onDrift` what does not fit (the schemas' module loaded only then). */
function responseCheck(onDrift: (message: string) => void): Check {
  return async (request, response, declared) => {
    const { drift } = await import("../http/schemas.ts")
    // A WebSocket upgrade answers no route's schema (a GET of the same path declares its own answer).
    if (!declared || request.headers.get("upgrade")?.toLowerCase() === "websocket") return
    const contentType = response.headers.get("content-type")
    const json = contentType?.startsWith("application/json") ? await response.clone().json() : undefined
    const why = drift(declared, response.status, contentType, () => json)
    if (why)
      onDrift(`${request.method} ${new URL(request.url).pathname} answered ${response.status} off its schema: ${why}`)
  }
}

/** A WebSocket's session, handed from the upgrade to the socket's handlers. */
interface Upgraded {
  session: SocketSession
}
type Server = Bun.Server<Upgraded>

/** One request on its way through a route. */
interface Call {
  request: Request
  url: URL
  server: Server | undefined
  /** The path's parameters, decoded, before their schema. */
  params: Record<string, string>
  set: Set
  /** The connection's peer address as the server saw it (none without a server). */
  peer: string | undefined
}

/** A route of the table: its path as the manifest writes it (the metrics' and the audit log's label). */
interface Route {
  path: string
  /** The handler's answer (a value or a Response), or UPGRADED once a WebSocket is handed over. */
  answer(call: Call): Promise<unknown>
  /** Whether its answers go to the audit log (its refusals always do). */
  audited: boolean
  /** A public route's read: its own 401 (GET /api/auth/me while nobody is signed in) is an answer, not a refused attempt. */
  quiet?: boolean
  /** What its handler file declares it answers (the file loaded, if it was not). */
  response?: () => Promise<Responses | undefined>
}

/** The handler file of `entry`, imported by the first call and kept (a failed import is tried again by the next). */
function loader(entry: RouteEntry): () => Promise<RouteDef> {
  let loading: Promise<RouteDef> | undefined
  const load = () =>
    entry.load().then(
      (m) => m.default,
      (err) => {
        loading = undefined
        throw err
      },
    )
  return () => (loading ??= load())
}

const UPGRADED = Symbol("upgraded")

/** A stack's git webhook (handlers/api/stacks/[name]/git/webhook.post.ts), exempt from the browser guard. */
const GIT_WEBHOOK = /^\/api\/stacks\/[^/]+\/git\/webhook$/

/** The stack a route under /api/stacks/:name names. */
const stackOf = (path: string, params: Record<string, string> | undefined) =>
  path.startsWith("/api/stacks/:name") ? params?.name : undefined

/** A WebSocket route: who may open it, its params and query, then the handler's session on the upgraded socket. */
function socketRoute(entry: RouteEntry, ctx: Ctx): Route {
  const { path } = entry
  const load = loader(entry)
  return {
    path,
    audited: true,
    response: async () => (await load()).response as Responses | undefined,
    async answer({ request, url, server, params: raw, set, peer }) {
      await admit(ctx, entry, request, peer, stackOf(path, raw))
      const mod = await load()
      const params = await validated("params", mod.params, raw)
      const query = await validated("query", mod.query, queryOf(url))
      if (!server || request.headers.get("upgrade")?.toLowerCase() !== "websocket")
        throw new HttpError(400, "websocket_expected", "this route is a WebSocket: send an upgrade request")
      const opened = await (mod.handler as (input: unknown) => Promise<SocketSession>)({
        params,
        query,
        request,
        ctx,
        peer,
      })
      const session = ctx.auth.enabled
        ? heldSocket(ctx.auth, request, opened, (action, reason) =>
            ctx.auth.write(request, { action, reason, method: "GET", route: path, target: raw, status: 101, peer }),
          )
        : opened
      if (server.upgrade(request, { data: { session }, headers: headersOf(set) })) return UPGRADED
      opened.close()
      throw new HttpError(400, "websocket_expected", "the WebSocket upgrade failed")
    },
  }
}

/** An HTTP route: who may call it, then its params, query and body (read and checked only then), then the handler. */
function httpRoute(entry: RouteEntry, ctx: Ctx): Route {
  const { path } = entry
  const load = loader(entry)
  const guarded = !!entry.access || ctx.auth.enabled
  return {
    path,
    audited: true,
    quiet: entry.role === "public" && entry.method === "GET",
    response: async () => (await load()).response as Responses | undefined,
    async answer({ request, url, params: raw, set, peer }) {
      if (guarded) await admit(ctx, entry, request, peer, stackOf(path, raw))
      const mod = await load()
      const accepts = mod.accepts ?? JSON_ONLY
      const params = await validated("params", mod.params, raw)
      const query = await validated("query", mod.query, queryOf(url))
      const reads = accepts === JSON_ONLY && request.method !== "GET" && request.method !== "HEAD"
      const body = await validated(
        "body",
        mod.body,
        reads ? await jsonBody(request, ctx.config.maxJsonBody) : undefined,
      )
      if (accepts !== JSON_ONLY) checkBody(request, accepts)
      const answer = await mod.handler({ params, query, body, request, ctx, set, peer })
      return ctx.auth.enabled ? holdStream(ctx, request, answer, path, raw) : answer
    },
  }
}

/** An answer as it goes out while sign-in is on: an event stream is held by its caller's credential (lib/auth/held.ts). */
const holdStream = (ctx: Ctx, request: Request, answer: unknown, route: string, target: Record<string, string>) =>
  heldStream(ctx.auth, request, answer, (action, reason) =>
    ctx.auth.write(request, { action, reason, method: request.method, route, target, status: 200 }),
  )

/**
 * Who calls /mcp while sign-in is on (401 without a credential): the tools their role allows, each
 * call made as them and audited with the tool's name, changing ones planned first unless their token
 * says otherwise.
 */
async function mcpCaller(
  ctx: Ctx,
  request: Request,
  peer: string | undefined,
  handle: (req: Request) => Promise<Response>,
): Promise<McpCaller> {
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

export interface App {
  /** Answers one request as the server does, without a server (tests, the MCP tools' calls): no peer address, no WebSocket. */
  fetch(request: Request): Promise<Response>
  /** Serves the app with Bun.serve: the pages as its static routes, the WebSocket sessions. */
  listen(options: {
    hostname: string
    port: number
    maxRequestBodySize?: number
    idleTimeout?: number
    development?: boolean
  }): Server
}

/**
 * The app over `rows`, the route manifest (routes.gen.ts) that the entry point hands in: a route's
 * handler file is loaded by its first request, and /openapi and /mcp load them all on their first. `pages`
 * are HTML imports served by Bun itself (the bundled UI), as static routes of the server.
 * `onDrift` is called with a description of every answer that does not fit its route's `response`
 * schema; without it nothing is checked.
 */
export function createApp(
  ctx: Ctx,
  rows: readonly RouteEntry[],
  pages: Record<string, Bun.HTMLBundle> = {},
  onDrift?: (message: string) => void,
): App {
  const info = {
    title: "Harbormaster API",
    version,
    description: "Containers, stacks, images, volumes and a cluster of servers on one Docker engine each.",
  }
  const guard: GuardOptions = {
    allowedHosts: ctx.config.allowedHosts,
    corsOrigins: ctx.config.corsOrigins,
    listenHost: ctx.config.addr.host,
  }
  const check = onDrift && responseCheck(onDrift)
  const handle = (request: Request) => answer(request) as Promise<Response>
  let document: Promise<unknown> | undefined
  // /mcp answers to its own Host and Origin allowlists instead of the API's guard; its tools call this app.
  // The MCP SDK is loaded only when SVC_MCP names a mode, and then on the first call of /mcp.
  const mode = ctx.config.mcp
  let mcp: ReturnType<typeof mcpEndpoint> | undefined
  const mcpEndpoint = async () =>
    (await import("../mcp/endpoint.ts")).mcpEndpoint(mode!, await loadRoutes(rows), handle, ctx.now)
  const isMcp = (url: URL) => !!mode && url.pathname === "/mcp"
  // A git server calls a stack's webhook from its own host, proving itself with the stack's secret.
  const ownGuard = (request: Request, url: URL) =>
    isMcp(url) || (request.method === "POST" && GIT_WEBHOOK.test(url.pathname))

  const table = new Router<Route>()
  table.add("GET", "/openapi", {
    path: "/openapi",
    audited: true,
    answer: async ({ url }) =>
      (document ??= Promise.all([import("./openapi.ts"), loadRoutes(rows)]).then(([m, loaded]) =>
        m.openapiDocument(loaded, info, url.origin, ctx.auth.enabled),
      )),
  })
  if (mode)
    table.add("ALL", "/mcp", {
      path: "/mcp",
      // /mcp's own requests are not entries: each tool call is, with the request it makes.
      audited: false,
      answer: async ({ request, peer }) => {
        if (!ctx.auth.enabled) return (await (mcp ??= mcpEndpoint())).handle(request)
        const caller = await mcpCaller(ctx, request, peer, handle)
        return holdStream(ctx, request, await (await (mcp ??= mcpEndpoint())).handle(request, caller), "/mcp", {})
      },
    })
  for (const row of rows)
    table.add(row.method, row.path, row.method === "WS" ? socketRoute(row, ctx) : httpRoute(row, ctx), row.rest)

  const observe = (request: Request, route: string | undefined, status: number, started: number) =>
    ctx.metrics.observeRequest(route || "unmatched", request.method, status, (performance.now() - started) / 1000)

  /** The answer to `request`: none once it is upgraded to a WebSocket. */
  async function answer(request: Request, server?: Server): Promise<Response | undefined> {
    const started = performance.now()
    const url = new URL(request.url)
    const set: Set = { headers: {} }
    let route: Route | undefined
    let params: Record<string, string> = {}
    let response: Response
    try {
      if (!ownGuard(request, url)) {
        const cors = corsHeaders(request.headers.get("origin"), guard)
        Object.assign(set.headers, cors)
        checkRequest(request, guard)
        if (request.method === "OPTIONS") return new Response(null, { status: 204, headers: cors })
      }
      const upgrade = request.method === "GET" && request.headers.get("upgrade")?.toLowerCase() === "websocket"
      const found = table.find(upgrade ? ["WS", "GET", "ALL"] : [request.method, "ALL"], url.pathname)
      if (!found) throw new HttpError(404, "not_found", "no such route")
      ;({ route, params } = found)
      const answered = await route.answer({
        request,
        url,
        server,
        params,
        set,
        peer: server?.requestIP(request)?.address,
      })
      if (answered === UPGRADED) {
        observe(request, route.path, 101, started)
        ctx.auth.record(request, route.path, params, 101)
        return undefined
      }
      response = toHttp(answered, set)
      observe(request, route.path, response.status, started)
      if (route.audited) ctx.auth.record(request, route.path, params, response.status, undefined, route.quiet)
    } catch (error) {
      response = toResponse(error)
      observe(request, route?.path, response.status, started)
      if (route) ctx.auth.record(request, route.path, params, response.status, undefined, route.quiet)
      for (const [k, v] of Object.entries(set.headers))
        if (k.startsWith("access-control-") || k === "vary") response.headers.set(k, String(v))
    }
    if (check && route) await check(request, response, await route.response?.())
    return response
  }

  return {
    fetch: handle,
    listen: (options) =>
      Bun.serve<Upgraded>({
        ...options,
        routes: pages,
        fetch: (request, server) => answer(request, server) as Promise<Response>,
        websocket: {
          open: (ws) => ws.data.session.open(ws),
          message: (ws, message) => ws.data.session.message(message),
          close: (ws, code, reason) => ws.data.session.close(code, reason),
          drain: (ws) => ws.data.session.drain?.(),
        },
      }),
  }
}
