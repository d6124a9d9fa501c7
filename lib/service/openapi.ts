// The OpenAPI 3.1 document at /openapi and its rendered reference at /openapi/reference, made by
// @elysiajs/openapi. The plugin documents an Elysia app of the routes' declarations, built once every
// handler file is loaded: each route with its `params`, `query` and `body` (valibot, handed to the
// plugin as Standard JSON Schemas, so that it asks for a request's input form and an answer's output
// form), its `detail`, and what the plugin has no words for: the route's security and role (x-role),
// its answers (an event stream is `text/event-stream` with the schema of one message, every route
// answers the one error envelope for 4xx and 5xx), a body other than JSON (`accepts`) or an optional
// one, and a WebSocket's upgrade (101) with the schema of its control text frame (x-text-frame). The
// gateway's catch-all is one path with one operation per method. The document's own parts (servers,
// tags, the roles' table x-roles, the security schemes, the error envelope) are the plugin's
// `documentation`.
import { Elysia } from "elysia"
import { openapi } from "@elysiajs/openapi"
import { toJsonSchema } from "@valibot/to-json-schema"
import { ACCESS } from "./access.ts"
import { SESSION_COOKIE } from "../auth/auth.ts"
import { MAY } from "../auth/roles.ts"
import type * as v from "valibot"
import type { Detail, RouteRow } from "./handler.ts"
import { routeOf } from "../http/manifest.ts"
import { errorSchema, isStream, statusesOf, type Body, type Responses } from "../http/schemas.ts"

type Json = Record<string, unknown>
type Schema = v.GenericSchema | v.GenericSchemaAsync

/** JSON Schema of `schema` as a request's input or an answer's output (what no JSON Schema can say, a check or a custom schema, left out). */
const jsonSchema = (schema: Schema, typeMode: "input" | "output"): Json => {
  const { $schema: _, ...rest } = toJsonSchema(schema as v.GenericSchema, {
    target: "draft-2020-12",
    typeMode,
    errorMode: "ignore",
  }) as Json
  return rest
}

/** `schema` as a Standard JSON Schema: the plugin asks it for the form it documents (a query's strings, an answer's values). */
const described = (schema: Schema) => ({
  "~standard": {
    ...schema["~standard"],
    jsonSchema: {
      input: () => jsonSchema(schema, "input"),
      output: () => jsonSchema(schema, "output"),
    },
  },
})

const GATEWAY_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"]
const STATUS_TEXT: Record<number, string> = { 200: "OK", 201: "Created", 202: "Accepted", 409: "Conflict" }

const TAGS: Record<string, string> = {
  auth: "Sign-in, users, API tokens and the audit log (SVC_AUTH)",
  backups: "Stack backups with restic: repositories, backups, restores",
  cluster: "This server's place in a cluster: the token, joining and leaving",
  containers: "The engine's containers: list, inspect, act, logs, stats, shell",
  git: "Stacks from git repositories: the source, syncs, webhooks",
  images: "Local images, their vulnerability scans and update checks",
  metrics: "Prometheus metrics and service discovery",
  move: "Copies between servers: exports, imports and the stack copy (cluster token)",
  networks: "The engine's networks",
  nodes: "The control plane's node registry, probes and gateway",
  prune: "Removing what is unused",
  stacks: "Compose stacks: deploy, environment, files, versions, updates, logs",
  stats: "CPU, memory, network and block I/O of containers and stacks",
  swarm: "Docker Swarm: this engine's place in it, its nodes, services, tasks and their logs",
  system: "Health, the dashboard and events",
  tts: "Text to speech",
  volumes: "The engine's volumes",
}

export const securitySchemes = {
  clusterToken: {
    type: "http",
    scheme: "bearer",
    description: "The cluster token: GET /api/cluster/token on the control plane (or the token a member joined with)",
  },
  metricsToken: {
    type: "http",
    scheme: "bearer",
    description: "SVC_METRICS_TOKEN, when the service is started with one",
  },
  sessionCookie: {
    type: "apiKey",
    in: "cookie",
    name: SESSION_COOKIE,
    description:
      "The session a sign-in set (POST /api/auth/login, single sign-on, a trusted proxy), while SVC_AUTH is on",
  },
  apiToken: {
    type: "http",
    scheme: "bearer",
    description: "An API token (hm_...: POST /api/tokens), while SVC_AUTH is on",
  },
}

/** Who may call a route: its own credential (`access`), and while sign-in is on a user of its role. */
function security(row: RouteRow, signIn: boolean): Record<string, string[]>[] {
  const own = row.mod.access ? ACCESS[row.mod.access].security : []
  if (!signIn || row.mod.role === "public") return own
  return [...own, { sessionCookie: [] }, { apiToken: [] }]
}

function content(body: Body): Json {
  if (!isStream(body)) return { "application/json": { schema: jsonSchema(body, "output") } }
  return { [body.contentType]: body.message ? { schema: jsonSchema(body.message, "output") } : {} }
}

function responses(declared: Responses | undefined, ws: boolean): Json {
  if (ws)
    return {
      101: { description: "Switching Protocols: the WebSocket is open" },
      "4XX": { $ref: "#/components/responses/Error" },
    }
  const out: Json = {}
  for (const [status, body] of declared ? statusesOf(declared) : [])
    out[status] = {
      description: isStream(body) ? body.description : (STATUS_TEXT[status] ?? "Answer"),
      content: content(body),
    }
  if (!Object.keys(out).some((s) => s.startsWith("4"))) out["4XX"] = { $ref: "#/components/responses/Error" }
  out["5XX"] = { $ref: "#/components/responses/Error" }
  return out
}

/** A request body the plugin does not describe: another type than JSON, or an optional JSON one. */
function requestBody(row: RouteRow): Json | undefined {
  if (row.mod.accepts)
    return {
      required: true,
      content: Object.fromEntries(row.mod.accepts.map((type) => [type === "*" ? "*/*" : type, {}])),
    }
  if (!optional(row)) return undefined
  return { required: false, content: { "application/json": { schema: jsonSchema(row.mod.body!, "input") } } }
}

const optional = (row: RouteRow) => (row.mod.body as { type?: string } | undefined)?.type === "optional"

/** The route's operation beyond its input, as the plugin takes it: `detail`. */
function detailOf(row: RouteRow, operationId: string, signIn: boolean): Json {
  const { summary, description, tags } = row.mod.detail as Detail
  const body = requestBody(row)
  return {
    operationId,
    summary,
    ...(description ? { description } : {}),
    tags,
    security: security(row, signIn),
    "x-role": row.mod.role ?? "admin",
    ...(body ? { requestBody: body } : {}),
    responses: responses(row.mod.response as Responses | undefined, row.method === "WS"),
    ...(row.mod.message ? { "x-text-frame": jsonSchema(row.mod.message, "input") } : {}),
  }
}

/** The documented routes are never called: the app serves the real ones. */
const noop = (() => undefined) as never

/**
 * The plugin on an app of `rows`' declarations: /openapi answers the document, /openapi/reference
 * the page that renders it. `serverUrl` is where this server answers. Each operation says the role it
 * needs (`x-role`: public, viewer, operator, admin), and `x-roles` what each role may do; with
 * `signIn` (SVC_AUTH on) an operation's security lists the session cookie and API tokens.
 */
export function openapiApp(
  rows: readonly RouteRow[],
  info: { title: string; version: string; description: string },
  serverUrl: string,
  signIn = false,
) {
  const tags = [...new Set(rows.flatMap((r) => r.mod.detail?.tags ?? []))].sort()
  const app = new Elysia().use(
    openapi({
      path: "/openapi/reference",
      specPath: "/openapi",
      // The page (Scalar's renderer, from its CDN at a pinned version) reads the document from its
      // absolute path: the plugin's default is relative to the page.
      scalar: { url: "/openapi", version: "1.72.1" },
      openapiVersion: "3.1.0",
      documentation: {
        info,
        servers: [{ url: serverUrl }],
        tags: tags.map((name) => ({ name, description: TAGS[name] ?? name })),
        "x-roles": MAY,
        components: {
          securitySchemes,
          responses: {
            Error: {
              description: "The error envelope",
              content: { "application/json": { schema: jsonSchema(errorSchema, "output") } },
            },
          },
        },
      } as never,
    }),
  )
  for (const row of rows) {
    if (!row.mod.detail?.operationId) continue
    const { path, rest } = routeOf(row.file)
    const at = path.replace("*", `:${rest}`)
    const input = {
      ...(row.mod.params && { params: described(row.mod.params) }),
      ...(row.mod.query && { query: described(row.mod.query) }),
      ...(row.mod.body && !optional(row) && { body: described(row.mod.body), parse: "json" }),
    }
    const { operationId } = row.mod.detail
    if (row.method === "ALL")
      for (const m of GATEWAY_METHODS) {
        const id = `${operationId}${m[0]}${m.slice(1).toLowerCase()}`
        app.route(m, at, noop, { ...input, detail: detailOf(row, id, signIn) } as never)
      }
    else
      app.route(row.method === "WS" ? "GET" : row.method, at, noop, {
        ...input,
        detail: detailOf(row, operationId, signIn),
      } as never)
  }
  return app
}

/** The document /openapi answers (the docs' reference is written from it). */
export async function openapiDocument(...args: Parameters<typeof openapiApp>): Promise<Json> {
  return (await openapiApp(...args).handle(new Request(`${args[2]}/openapi`))).json()
}
