// The HTTP application on Elysia: every route of the manifest (routes.gen.ts) is an Elysia route with
// its handler file's valibot schemas as Standard Schemas, and what applies to a route is a hook of its
// own, declared where it belongs: the browser guard (a route may declare `browserGuard: false`), the
// front door with the role and access the manifest copied from the handler file, the body read only
// then, the revocation of a signed-in caller's event stream, the audit log, the request metrics and,
// when asked (tests, SVC_RESPONSE_DRIFT_LOG), the check of the answer against its route's `response`
// schema. A handler file is loaded by its route's first request that the front door let through: its
// schemas reach Elysia through a Standard Schema that loads it (bench/startup.ts: loading all of them
// at start costs start-up and idle memory).
// The routes under /api/stacks/:name are a group that names its stack to the front door (a caller
// limited to some stacks reaches only theirs). A GET route answers HEAD through its own hooks; a
// request no route takes is looked up in the manifest: OPTIONS on a known path answers with Allow, a
// method the path does not serve 405 with Allow, else 404 (Elysia routes only what was declared: a
// route of its own for each path's OPTIONS and other methods would double the routes it builds at
// start, bench/startup.ts). /openapi serves the
// document @elysiajs/openapi makes of the routes' declarations and /openapi/reference its rendered
// page (openapi.ts), /mcp the MCP endpoint (mcp-route.ts); the web UI's files are a plugin of their own.
import { Elysia, ValidationError } from "elysia"
import type { Ctx } from "./context.ts"
import { checkJsonDepth, readLimited } from "../http/body-limit.ts"
import { checkBody, checkRequest, corsHeaders, hasBody, type GuardOptions } from "../http/guard.ts"
import type { Peer, SocketSession } from "../http/socket.ts"
import { domainErrorResponse, errorResponse, HttpError } from "../http/http-error.ts"
import { DomainError, invalid } from "../errors/errors.ts"
import { loadRoutes, type RouteDef, type RouteEntry, type ResponseSet } from "./handler.ts"
import { admit } from "./access.ts"
import { heldSocket, heldStream } from "../auth/held.ts"
import type { Responses } from "../http/schemas.ts"
import { version } from "../data/build-info.ts"
import { mcpRoute } from "./mcp-route.ts"

const JSON_ONLY = ["application/json"]
/** The stack group's path: its routes are about the stack they name. */
const STACK = "/api/stacks/:name"

type Router = Elysia<any, any, any, any, any, any, any>

/** The one error shape: a domain error's or an HttpError's status, a full disk's 507, else a logged 500. */
function toResponse(error: unknown): Response {
  if (error instanceof HttpError) return errorResponse(error.status, error.code, error.message, error.extras)
  if (error instanceof DomainError) return domainErrorResponse(error)
  if (error instanceof ValidationError) return validationError(error)
  if (["ENOSPC", "EDQUOT"].includes((error as NodeJS.ErrnoException)?.code ?? ""))
    return errorResponse(
      507,
      "insufficient_storage",
      "the data directory's disk is full; free space and retry (files are replaced whole, never half-written)",
    )
  console.error("internal error:", error instanceof Error ? (error.stack ?? error.message) : error)
  return errorResponse(500, "internal", "internal error; see the service log")
}

/** Elysia's validation error as the 400 naming the first thing wrong: "body.n.k: Invalid type: ...", `invalid_<param>` for a path parameter. */
function validationError(error: ValidationError): Response {
  const issue = error.valueError as { message?: string; path?: { key: PropertyKey }[] } | undefined
  const keys = (issue?.path ?? []).map((p) => String(p.key))
  const code = error.type === "params" && keys[0] ? `invalid_${keys[0]}` : "invalid_request"
  const where = keys.length ? `${error.type}.${keys.join(".")}` : error.type
  return errorResponse(400, code, `${where}: ${issue?.message ?? "invalid value"}`)
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
    throw invalid("the request body is not valid JSON", "invalid_json")
  }
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

type Validate = (value: unknown) => unknown
/**
 * A route's `part` schema as Elysia takes it, a Standard Schema: the handler file's own valibot schema,
 * loaded by the first value it checks; without one, the value as it came. Elysia names a catch-all `*`:
 * it is handed on under the route's name for it (`rest`).
 */
function schemaOf(load: () => Promise<RouteDef>, part: "params" | "query" | "body", rest?: string) {
  const validate: Validate = async (value) => {
    let input = value
    if (rest && value && typeof value === "object" && "*" in value) {
      const { "*": tail, ...named } = value as Record<string, unknown>
      input = { ...named, [rest]: tail }
    }
    const schema = (await load())[part]
    return schema ? schema["~standard"].validate(input) : { value: input }
  }
  return { "~standard": { version: 1, vendor: "harbormaster", validate } }
}

/** The JSON of an answer, whether the handler returned a value or a Response (read from a clone). */
async function answerOf(
  response: unknown,
  status: number,
): Promise<{ status: number; contentType: string | null; json: unknown }> {
  if (!(response instanceof Response))
    return { status, contentType: "application/json", json: JSON.parse(JSON.stringify(response ?? null)) }
  const contentType = response.headers.get("content-type")
  return {
    status: response.status,
    contentType,
    json: contentType?.startsWith("application/json") ? await response.clone().json() : undefined,
  }
}

type Check = (request: Request, response: unknown, status: number, declared: Responses | undefined) => Promise<void>

/** Checks an answer against its route's `response` schema and tells `onDrift` what does not fit (the schemas' module loaded only then). */
function responseCheck(onDrift: (message: string) => void): Check {
  return async (request, response, status, declared) => {
    if (!declared) return
    const { drift } = await import("../http/schemas.ts")
    const answer = await answerOf(response, status)
    const why = drift(declared, answer.status, answer.contentType, () => answer.json)
    if (why)
      onDrift(`${request.method} ${new URL(request.url).pathname} answered ${answer.status} off its schema: ${why}`)
  }
}

/** Elysia reads a text frame that looks like JSON (or a number) into a value: the session gets text back. */
const frame = (message: unknown): string | Uint8Array =>
  typeof message === "string"
    ? message
    : message instanceof Uint8Array
      ? message
      : ArrayBuffer.isView(message)
        ? new Uint8Array(message.buffer)
        : JSON.stringify(message)

/** What Elysia hands a route's hooks and handler, as far as the app reads it. */
interface Context {
  request: Request
  params: Record<string, string>
  query: Record<string, unknown>
  body: unknown
  set: ResponseSet
  server?: { requestIP(request: Request): { address: string } | null } | null
  route: string
}

/** HEAD's answer: GET's status and headers, its body left unread (an event stream or a volume's tar would never end or cost the whole read). */
function headOf(answer: unknown, set: ResponseSet): Response {
  if (answer instanceof Response) {
    void answer.body?.cancel().catch(() => {})
    return new Response(null, answer)
  }
  const json = Response.json(answer ?? null, {
    status: Number(set.status ?? 200),
    headers: set.headers as Record<string, string>,
  })
  return new Response(null, { status: json.status, headers: json.headers })
}

/** An answer as it goes out while sign-in is on: an event stream is held by its caller's credential (lib/auth/held.ts). */
const holdStream = (ctx: Ctx, request: Request, answer: unknown, route: string, target: Record<string, string>) =>
  heldStream(ctx.auth, request, answer, (action, reason) =>
    ctx.auth.write(request, { action, reason, method: request.method, route, target, status: 200 }),
  )

const peerOf = (c: Context) => c.server?.requestIP(c.request)?.address

/** What the manifest serves at a request's path: the path of it that matches (the one with the fewest parameters, as routing prefers it) and every method served there (by every path that matches). */
function methodsByPath(
  entries: readonly RouteEntry[],
): (pathname: string) => { path: string; methods: Set<string> } | undefined {
  const patterns = [...Map.groupBy(entries, (e) => e.path)].map(([path, rows]) => ({
    path,
    methods: rows.map((r) => r.method as string),
    re: new RegExp(
      `^${path
        .replace(/[.+?^${}()|[\]\\]/g, "\\$&")
        .replace(/:[^/]+/g, "[^/]+")
        .replace(/\*$/, ".*")}/?$`,
    ),
  }))
  const params = (path: string) => path.split("/").filter((part) => part.startsWith(":") || part === "*").length
  patterns.sort((a, b) => params(a.path) - params(b.path))
  return (pathname) => {
    const hits = patterns.filter((p) => p.re.test(pathname))
    return hits.length ? { path: hits[0]!.path, methods: new Set(hits.flatMap((h) => h.methods)) } : undefined
  }
}

/** The methods a path answers, for Allow. */
function allowed(methods: Set<string>): string {
  const named = [...methods].flatMap((m) =>
    m === "WS" ? ["GET"] : m === "ALL" ? ["GET", "POST", "PUT", "PATCH", "DELETE"] : [m],
  )
  if (named.includes("GET")) named.push("HEAD")
  return [...new Set([...named, "OPTIONS"])].join(", ")
}

export interface App {
  /** Answers one request in-process, as the server does, without a server (tests, the MCP tools' calls, an outbound node's carried calls): no peer address, no WebSocket. */
  fetch(request: Request): Promise<Response>
  /** Serves the app, its WebSocket sessions with it. */
  listen(options: {
    hostname: string
    port: number
    maxRequestBodySize?: number
    idleTimeout?: number
    development?: boolean
  }): Bun.Server<unknown>
}

/**
 * The app over `entries`, the route manifest (routes.gen.ts) that the entry point hands in. `ui` is
 * the web UI's files (@elysiajs/static over the bundle, server.ts). `onDrift` is called with a
 * description of every answer that does not fit its route's `response` schema; without it nothing is
 * checked.
 */
export function createApp(
  ctx: Ctx,
  entries: readonly RouteEntry[],
  ui?: Router,
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
  const started = new WeakMap<Request, number>()
  const observe = (request: Request, route: string | undefined, status: number) =>
    ctx.metrics.observeRequest(
      route || "unmatched",
      request.method,
      status,
      (performance.now() - (started.get(request) ?? performance.now())) / 1000,
    )

  /** The browser guard: DNS-rebinding Host names and foreign Origins refused, CORS headers for an allowed one. */
  const browserGuard = ({ request, set }: Pick<Context, "request" | "set">) => {
    Object.assign(set.headers, corsHeaders(request.headers.get("origin"), guard))
    checkRequest(request, guard)
  }

  /** The route a request is on, from its first hook (an error's answer is counted, audited and checked as the route's). */
  const on = new WeakMap<Request, { path: string; quiet: boolean; declared: () => Promise<Responses | undefined> }>()

  const served = methodsByPath(entries)
  /** A request no route took: OPTIONS on a path of the manifest (204 with Allow, CORS for an allowed origin), a method it does not serve (405 with Allow; a WebSocket route's GET without an upgrade 400), else 404. */
  const unrouted = (request: Request, set: ResponseSet): { response: Response; path?: string } => {
    const known = served(new URL(request.url).pathname)
    if (!known) return { response: errorResponse(404, "not_found", "no such route") }
    const { path, methods } = known
    const allow = allowed(methods)
    if (request.method === "OPTIONS") {
      try {
        browserGuard({ request, set })
      } catch (err) {
        return { response: toResponse(err), path }
      }
      return { response: new Response(null, { status: 204, headers: { allow } }), path }
    }
    const get = request.method === "GET" || request.method === "HEAD"
    const response =
      methods.has("WS") && !methods.has("GET") && get
        ? errorResponse(400, "websocket_expected", "this route is a WebSocket: send an upgrade request")
        : errorResponse(405, "method_not_allowed", `${request.method} is not a method of ${path}: ${allow}`, {
            headers: { allow },
          })
    return { response, path }
  }

  const app = new Elysia()
    .onRequest(({ request }) => void started.set(request, performance.now()))
    .onError(async ({ error, code, request, set, params }) => {
      const route = on.get(request)
      const { response, path } =
        code === "NOT_FOUND"
          ? unrouted(request, set as ResponseSet)
          : { response: toResponse(error), path: route?.path }
      for (const [k, v] of Object.entries(set.headers))
        if (k.startsWith("access-control-") || k === "vary") response.headers.set(k, String(v))
      observe(request, path, response.status)
      if (route) ctx.auth.record(request, route.path, params ?? {}, response.status, undefined, route.quiet)
      if (request.method === "HEAD") return new Response(null, response)
      if (route && check) await check(request, response, response.status, await route.declared())
      return response
    })

  // The document and its rendered page: the plugin's app over every route's declarations, made by the first ask.
  let docs: Promise<{ handle(request: Request): Promise<Response> }> | undefined
  const reference = async ({ request }: { request: Request }) => {
    docs ??= Promise.all([import("./openapi.ts"), loadRoutes(entries)]).then(([m, loaded]) =>
      m.openapiApp(loaded, info, new URL(request.url).origin, ctx.auth.enabled),
    )
    const answer = await (await docs).handle(request)
    observe(request, new URL(request.url).pathname, answer.status)
    return answer
  }
  app.get("/openapi", reference).get("/openapi/reference", reference)
  const handle = (request: Request) => app.handle(request)
  if (ctx.config.mcp)
    mcpRoute(
      app,
      ctx,
      ctx.config.mcp,
      () => loadRoutes(entries),
      handle,
      (request, answer) => holdStream(ctx, request, answer, "/mcp", {}),
    )

  /** Mounts the route of `entry` on `target` at `at` (its path within the target's group); `scope` names the stack a request is about. */
  const mount = (target: Router, entry: RouteEntry, at: string, scope: (c: Context) => string | undefined) => {
    const { method, path, rest } = entry
    const load = loader(entry)
    const frontDoor = (c: Context) => admit(ctx, entry, c.request, peerOf(c), scope(c))
    const guards = entry.browserGuard === false ? [] : [browserGuard]
    const schemas = {
      params: schemaOf(load, "params", rest),
      query: schemaOf(load, "query"),
    }
    if (method === "WS") {
      const session = (ws: { data: { session?: SocketSession } }) => ws.data.session!
      target.ws(at, {
        ...schemas,
        // Called once, before the upgrade.
        async upgrade(c: Context & { session?: SocketSession }) {
          on.set(c.request, { path, quiet: false, declared: async () => undefined })
          for (const g of guards) g(c)
          const peer = peerOf(c)
          await frontDoor(c)
          const opened = (await (
            await load()
          ).handler({
            params: c.params,
            query: c.query,
            request: c.request,
            ctx,
            peer,
          })) as SocketSession
          let openedAt = 0
          c.session = ctx.auth.enabled
            ? heldSocket(ctx.auth, c.request, opened, (action, reason) => {
                // The closing entry says how long the socket was open (by the context's clock).
                if (action === "ws.open") openedAt = ctx.now()
                ctx.auth.write(c.request, {
                  action,
                  reason,
                  method: "GET",
                  route: path,
                  target: c.params ?? {},
                  status: 101,
                  peer,
                  ...(action === "ws.close" && { seconds: Math.round((ctx.now() - openedAt) / 1000) }),
                })
              })
            : opened
          ctx.auth.record(c.request, path, c.params ?? {}, 101)
          observe(c.request, path, 101)
        },
        open: (ws: { raw: Peer; data: { session?: SocketSession } }) => session(ws).open(ws.raw),
        message: (ws: { data: { session?: SocketSession } }, message: unknown) => session(ws).message(frame(message)),
        close: (ws: { data: { session?: SocketSession } }, code?: number, reason?: string) =>
          session(ws).close(code, reason),
        drain: (ws: { data: { session?: SocketSession } }) => session(ws).drain?.(),
      } as never)
      return
    }
    const declared = async () => (await load()).response
    const quiet = entry.role === "public" && method === "GET"
    const guarded = !!entry.access || ctx.auth.enabled
    const run = async (c: Context) => {
      const answer = await (await load()).handler({ ...c, ctx, peer: peerOf(c) })
      if (c.request.method === "HEAD") return headOf(answer, c.set)
      return ctx.auth.enabled ? holdStream(ctx, c.request, answer, path, c.params ?? {}) : answer
    }
    // A GET route answers HEAD through the same hooks (Elysia's own HEAD reads the whole body to count it).
    for (const m of method === "GET" ? ["GET", "HEAD"] : [method])
      target.route(
        m,
        at,
        run as never,
        {
          ...schemas,
          body: schemaOf(load, "body"),
          // The body is read once the caller is admitted (transform), not by Elysia's parser.
          parse: () => null,
          transform: [
            (c: Context) => void on.set(c.request, { path, quiet, declared }),
            ...guards,
            ...(guarded ? [frontDoor] : []),
            async (c: Context) => {
              const accepts = (await load()).accepts
              c.body = undefined
              if (accepts) checkBody(c.request, accepts)
              else if (c.request.method !== "GET" && c.request.method !== "HEAD")
                c.body = await jsonBody(c.request, ctx.config.maxJsonBody)
            },
          ],
          afterHandle: async ({ request, set, response, params }: Context & { response: unknown }) => {
            const status = response instanceof Response ? response.status : Number(set.status ?? 200)
            observe(request, path, status)
            ctx.auth.record(request, path, params ?? {}, status, undefined, quiet)
            if (check && request.method !== "HEAD") await check(request, response, status, await declared())
          },
        } as never,
      )
  }

  /** OPTIONS on a path a route serves with any method (which would take OPTIONS too): what it allows, and CORS. */
  const anyMethodOptions = (target: Router, entries: readonly RouteEntry[], at: (path: string) => string) => {
    for (const entry of entries.filter((e) => e.method === "ALL")) {
      const allow = allowed(new Set(entries.filter((e) => e.path === entry.path).map((e) => e.method)))
      target.options(at(entry.path), ((c: Context) => {
        browserGuard(c)
        return new Response(null, { status: 204, headers: { ...(c.set.headers as Record<string, string>), allow } })
      }) as never)
    }
  }

  // The stack group: its routes name a stack to the front door, so that a caller limited to some
  // stacks reaches only theirs there (and, elsewhere, only what a viewer reads).
  const inGroup = (e: RouteEntry) => e.path === STACK || e.path.startsWith(`${STACK}/`)
  const stackRoutes = entries.filter(inGroup)
  const others = entries.filter((e) => !inGroup(e))
  app.group(STACK, (group) => {
    const local = group.derive(({ params }) => ({ stack: (params as { name: string }).name }))
    const at = (path: string) => path.slice(STACK.length)
    for (const entry of stackRoutes)
      mount(local, entry, at(entry.path), (c) => (c as Context & { stack: string }).stack)
    anyMethodOptions(local, stackRoutes, at)
    return local
  })
  for (const entry of others) mount(app, entry, entry.path, () => undefined)
  anyMethodOptions(app, others, (path) => path)

  if (ui) app.use(ui)

  return {
    fetch: handle,
    listen: (options) => {
      // Not Elysia's default of sharing the port: a second service started on it is refused, not
      // handed half of the connections.
      app.listen({ ...options, reusePort: false })
      return app.server!
    },
  }
}
