// The OpenAPI 3.1 document served at /openapi, built from the route manifest: each handler file's
// `params`, `query`, `body` and `response` schemas (valibot, converted to JSON Schema), its `detail`
// (summary, operationId, tags, security), its `role` (x-role) and `accepts`. Every route answers the
// one error envelope for 4xx and 5xx. Event streams are `text/event-stream` with the schema of one message; WebSocket
// routes are their upgrade request (101), with the schema of their control text frame (`message`); the gateway's catch-all is one path with one operation per method.
import { toJsonSchema } from "@valibot/to-json-schema"
import { ACCESS } from "./access.ts"
import { SESSION_COOKIE } from "../auth/auth.ts"
import { MAY } from "../auth/roles.ts"
import type * as v from "valibot"
import type { Detail, RouteRow } from "./handler.ts"
import { routeOf } from "../http/manifest.ts"
import { errorSchema, isStream, statusesOf, type Body, type Responses } from "../http/schemas.ts"

type Json = Record<string, unknown>

const jsonSchema = (schema: unknown, typeMode: "input" | "output"): Json => {
  const { $schema: _, ...rest } = toJsonSchema(schema as v.GenericSchema, {
    target: "draft-2020-12",
    typeMode,
    errorMode: "ignore",
  }) as Json
  return rest
}

const GATEWAY_METHODS = ["get", "post", "put", "patch", "delete"]
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

function parameters(row: RouteRow, rest: string | undefined): Json[] {
  const fields = (schema: unknown, where: string) => {
    if (!schema) return []
    const json = jsonSchema(schema, "input")
    const required = (json.required as string[] | undefined) ?? []
    return Object.entries((json.properties ?? {}) as Record<string, Json>).map(([name, s]) => ({
      name,
      in: where,
      required: where === "path" || required.includes(name),
      ...(typeof s.description === "string" ? { description: s.description } : {}),
      schema: s,
    }))
  }
  const declared = fields(row.mod.params, "path")
  const named = [...routeOf(row.file).path.matchAll(/:([^/]+)/g)].map((m) => m[1]!).concat(rest ? [rest] : [])
  const path = named.map(
    (name) => declared.find((p) => p.name === name) ?? { name, in: "path", required: true, schema: { type: "string" } },
  )
  return [...path, ...fields(row.mod.query, "query")]
}

function requestBody(row: RouteRow): Json | undefined {
  if (row.mod.accepts)
    return {
      required: true,
      content: Object.fromEntries(row.mod.accepts.map((type) => [type === "*" ? "*/*" : type, {}])),
    }
  if (!row.mod.body) return undefined
  const schema = jsonSchema(row.mod.body, "input")
  const { examples, ...rest } = schema
  const optional = (row.mod.body as { type?: string }).type === "optional"
  return {
    required: !optional,
    content: { "application/json": { schema: rest, ...(Array.isArray(examples) ? { example: examples[0] } : {}) } },
  }
}

function operation(row: RouteRow, rest: string | undefined, operationId: string, signIn: boolean): Json {
  const { summary, description, tags } = row.mod.detail ?? ({} as Partial<Detail>)
  const body = requestBody(row)
  return {
    operationId,
    summary,
    ...(description ? { description } : {}),
    tags,
    security: security(row, signIn),
    "x-role": row.mod.role ?? "admin",
    parameters: parameters(row, rest),
    ...(body ? { requestBody: body } : {}),
    responses: responses(row.mod.response as Responses | undefined, row.method === "WS"),
    ...(row.mod.message ? { "x-text-frame": jsonSchema(row.mod.message, "input") } : {}),
  }
}

/**
 * The whole document; `serverUrl` is where this server answers. Each operation says the role it
 * needs (`x-role`: public, viewer, operator, admin), and `x-roles` what each role may do; with
 * `signIn` (SVC_AUTH on) an operation's security lists the session cookie and API tokens.
 */
export function openapiDocument(
  rows: readonly RouteRow[],
  info: { title: string; version: string; description: string },
  serverUrl: string,
  signIn = false,
): Json {
  const paths: Record<string, Json> = {}
  const tags = new Set<string>()
  for (const row of rows) {
    const { path, rest } = routeOf(row.file)
    const key = path.replace(/:([^/]+)/g, "{$1}").replace("*", `{${rest}}`)
    const detail = row.mod.detail ?? ({} as Partial<Detail>)
    if (!detail.operationId) continue
    for (const tag of detail.tags ?? []) tags.add(tag)
    const entry = (paths[key] ??= {})
    if (row.method === "ALL")
      for (const m of GATEWAY_METHODS)
        entry[m] = operation(row, rest, `${detail.operationId}${m[0]!.toUpperCase()}${m.slice(1)}`, signIn)
    else
      entry[row.method === "WS" ? "get" : row.method.toLowerCase()] = operation(row, rest, detail.operationId, signIn)
  }
  return {
    openapi: "3.1.0",
    info,
    servers: [{ url: serverUrl }],
    tags: [...tags].sort().map((name) => ({ name, description: TAGS[name] ?? name })),
    "x-roles": MAY,
    paths,
    components: {
      securitySchemes,
      responses: {
        Error: {
          description: "The error envelope",
          content: { "application/json": { schema: jsonSchema(errorSchema, "output") } },
        },
      },
    },
  }
}
