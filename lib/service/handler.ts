// What a handler file exports: one default handler, plus optional `params`/`body`/`query` valibot
// schemas (checked before the handler runs), `response` (what it answers, lib/http/schemas.ts),
// `detail` (OpenAPI summary, operationId, tags), `role` (the role a caller needs while sign-in is on:
// lib/auth/roles.ts), `access` (a credential of its own beyond the browser guard: lib/service/access.ts)
// and `accepts` (request content types other than JSON, "*" for any).
import type { Access } from "./access.ts"
import type { RouteRole } from "../auth/roles.ts"
import type { Ctx } from "./context.ts"
import type { Method } from "../http/manifest.ts"
import type { SocketSession } from "../http/socket.ts"

export interface HandlerInput<B = any, Q = Record<string, any>, P = Record<string, string>> {
  params: P
  query: Q
  body: B
  request: Request
  ctx: Ctx
  /** The connection's peer address as the server saw it (undefined when called without a server). */
  peer: string | undefined
  /** Response status and headers; a handler sets `set.status = 201` for a creation. */
  set: { status?: number | string; headers: Record<string, string | number> }
}

export type Handler<B = any, Q = any, P = Record<string, string>> = (input: HandlerInput<B, Q, P>) => unknown

export const defineHandler = <B = any, Q = Record<string, any>, P = Record<string, string>>(fn: Handler<B, Q, P>) => fn

/** The server side of a WebSocket: the handler runs before the upgrade (it may throw an HttpError). */
export type SocketHandler = (input: Omit<HandlerInput, "body" | "set">) => Promise<SocketSession>

export const defineSocket = (fn: SocketHandler) => fn

/** A handler file's exports. */
export interface RouteModule {
  default: unknown
  body?: unknown
  query?: unknown
  params?: unknown
  response?: unknown
  /** A WebSocket route's control text frame. */
  message?: unknown
  detail?: Record<string, unknown>
  /** The role a caller needs while sign-in is on (`public`: none); every handler file declares one. */
  role?: RouteRole
  access?: Access
  accepts?: string[]
}
/** A route of the manifest (routes.gen.ts): what routing and the front door need, and the loader of its handler file. */
export interface RouteEntry {
  method: Method
  path: string
  /** The name of the path's catch-all (`*`), if it has one. */
  rest?: string
  file: string
  /** The handler file's `role`, copied by the generator. */
  role?: RouteRole
  /** The handler file's `access`, copied by the generator. */
  access?: Access
  /** Imports the handler file (the app does it once, on the route's first request). */
  load: () => Promise<RouteModule>
}

/** A route with its handler file loaded. */
export interface RouteRow {
  method: Method
  file: string
  mod: RouteModule
}

/** Every route of `entries` with its handler file loaded (/openapi, MCP's tools, the docs). */
export const loadRoutes = (entries: readonly RouteEntry[]): Promise<RouteRow[]> =>
  Promise.all(entries.map(async ({ method, file, load }) => ({ method, file, mod: await load() })))
