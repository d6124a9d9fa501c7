// A handler file's one default export: the route's declarations beside its handler.
//
//   export default defineRoute({ role: "viewer", detail: {...}, params, query, body, response,
//     handler: async ({ params, query, body, ctx }) => ... })
//
// `params`, `query` and `body` are valibot schemas, checked before the handler runs; the handler's
// input is typed from them (their output), so no handler writes its input types by hand. `response`
// is what it answers (lib/http/schemas.ts), `detail` its OpenAPI text, `role` what a caller needs
// while sign-in is on (lib/auth/roles.ts), `access` a credential of its own beyond the browser guard
// (lib/service/access.ts) and `accepts` the request body types other than JSON ("*" for any, the
// body then left unread). A WebSocket route is a `defineSocket`, whose handler opens the session.
import type * as v from "valibot"
import type { Access } from "./access.ts"
import type { RouteRole } from "../auth/roles.ts"
import type { Ctx } from "./context.ts"
import type { Method } from "../http/manifest.ts"
import type { Responses } from "../http/schemas.ts"
import type { SocketSession } from "../http/socket.ts"

type Schema = v.GenericSchema | v.GenericSchemaAsync
/** What a schema makes of its input, or `none` without a schema. */
type Out<S, None> = S extends Schema ? v.InferOutput<S> : None

/** The route's words in /openapi, the docs and the MCP tools. */
export interface Detail {
  operationId: string
  summary: string
  description?: string
  tags: string[]
}

/** A handler's status and headers; a handler sets `set.status = 201` for a creation. */
export interface ResponseSet {
  status?: number | string
  headers: Record<string, string | number>
}

export interface HandlerInput<P, Q, B> {
  params: P
  query: Q
  body: B
  request: Request
  ctx: Ctx
  /** The connection's peer address as the server saw it (undefined when called without a server). */
  peer: string | undefined
  set: ResponseSet
}

interface Declared<P, Q, R> {
  /** The role a caller needs while sign-in is on (`public`: none). */
  role: RouteRole
  access?: Access
  /** None for a route between servers that /openapi leaves out. */
  detail?: Detail
  params?: P
  query?: Q
  response?: R
}

type Params<P> = Out<P, Record<string, string>>
type Query<Q> = Out<Q, Record<string, string | string[]>>

export interface RouteSpec<P, Q, B, R> extends Declared<P, Q, R> {
  body?: B
  accepts?: string[]
  /** `false` for a route other programs call from their own host (a git server's webhook), proving themselves otherwise: no Host or Origin check. */
  browserGuard?: false
  handler: (input: HandlerInput<Params<P>, Query<Q>, Out<B, undefined>>) => unknown
}

export interface SocketSpec<P, Q, R> extends Declared<P, Q, R> {
  /** The schema of the route's control text frame (in /openapi). */
  message?: Schema
  /** Runs before the upgrade (it may throw to refuse it) and opens the session. */
  handler: (input: Omit<HandlerInput<Params<P>, Query<Q>, undefined>, "body" | "set">) => Promise<SocketSession>
}

/** An HTTP route: its declarations and its handler. */
export const defineRoute = <
  P extends Schema | undefined = undefined,
  Q extends Schema | undefined = undefined,
  B extends Schema | undefined = undefined,
  R extends Responses | undefined = undefined,
>(
  spec: RouteSpec<P, Q, B, R>,
) => spec as RouteSpec<P, Q, B, R> & { response: R }

/** A WebSocket route: its declarations and the handler that opens its session. */
export const defineSocket = <
  P extends Schema | undefined = undefined,
  Q extends Schema | undefined = undefined,
  R extends Responses | undefined = undefined,
>(
  spec: SocketSpec<P, Q, R>,
) => spec as SocketSpec<P, Q, R> & { response: R }

/** A handler file's default export as the app, /openapi, the docs and the MCP tools read it. */
export interface RouteDef {
  role: RouteRole
  access?: Access
  /** None for a route between servers that /openapi leaves out. */
  detail?: Detail
  params?: Schema
  query?: Schema
  body?: Schema
  response?: Responses
  accepts?: string[]
  browserGuard?: false
  message?: Schema
  handler: (input: any) => unknown
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
  /** The handler file's `browserGuard`, copied by the generator. */
  browserGuard?: false
  /** Imports the handler file. */
  load: () => Promise<{ default: RouteDef }>
}

/** A route with its handler file loaded. */
export interface RouteRow {
  method: Method
  file: string
  mod: RouteDef
}

/** Every route of `entries` with its handler file loaded (/openapi, MCP's tools, the docs). */
export const loadRoutes = (entries: readonly RouteEntry[]): Promise<RouteRow[]> =>
  Promise.all(entries.map(async ({ method, file, load }) => ({ method, file, mod: (await load()).default })))
