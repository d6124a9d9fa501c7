// A tool's schemas are its route's: the arguments are the route's path parameters, query and body
// side by side (the way splitArgs takes them apart again), shown to agents as JSON Schema and checked
// with the route's own valibot schemas, so that a change to a route reaches its tool. The answer's
// schema is the route's `response` for its success status.
import type { Tool as ToolDefinition } from "@modelcontextprotocol/sdk/types.js"
import { toJsonSchema } from "@valibot/to-json-schema"
import * as v from "valibot"
import { invalid } from "../errors/errors.ts"
import { isStream, statusesOf, type Responses } from "../http/schemas.ts"
import { routeOf as fileRoute } from "../http/manifest.ts"
import { routeOf, splitArgs, type Tool } from "./tools.ts"

type Schema = v.GenericSchema

/** A route of the app's manifest: its method, its handler file and what that file exports. */
export interface RouteRow {
  method: string
  file: string
  mod: object
}

interface RouteSchemas {
  params: Schema
  query?: Schema
  body?: Schema
  response?: Responses
  /** The role the route needs while sign-in is on. */
  role?: unknown
}

export interface BoundTool extends Tool {
  schemas: RouteSchemas
  /** JSON Schema of the arguments (an object). */
  inputSchema: ToolDefinition["inputSchema"]
  /** JSON Schema of the structured answer, when the route declares one. */
  outputSchema?: ToolDefinition["outputSchema"]
  /** The key the structured answer carries an answer that is not an object under: `items` for a list (an event stream's messages too), else `value`. */
  wrap?: "items" | "value"
}

/** A path parameter of a route that declares no `params` schema: any text. */
const anySegment = v.pipe(v.string(), v.minLength(1))

function jsonSchema(schema: Schema, typeMode: "input" | "output") {
  const { $schema: _, ...json } = toJsonSchema(schema, { typeMode, errorMode: "ignore" })
  return json
}

/** The object entries of a schema (an optional object's too); none for a schema of another type. */
function entriesOf(schema: Schema | undefined): v.ObjectEntries {
  const s = schema as { entries?: v.ObjectEntries; wrapped?: Schema } | undefined
  return s?.entries ?? (s?.wrapped ? entriesOf(s.wrapped) : {})
}

function routeSchemas(tool: Tool, rows: readonly RouteRow[]): RouteSchemas {
  const { method, path } = routeOf(tool)
  const row = rows.find((r) => {
    const route = fileRoute(r.file)
    return r.method === method && route.path.replace("*", `:${route.rest}`) === path
  })
  if (!row) throw new Error(`tool ${tool.name}: no route ${tool.route}`)
  const mod = row.mod as Omit<RouteSchemas, "params"> & { params?: Schema }
  const names = [...path.matchAll(/:(\w+)/g)].map(([, key]) => key!)
  return {
    params: mod.params ?? v.object(Object.fromEntries(names.map((key) => [key, anySegment]))),
    query: mod.query,
    body: mod.body,
    response: mod.response,
    role: mod.role,
  }
}

/** The arguments' schema: path parameters, the query the tool does not fix, and the body's fields (or the body under bodyArg). */
function argumentsSchema(tool: Tool, schemas: RouteSchemas): Schema {
  const query = Object.fromEntries(
    Object.entries(entriesOf(schemas.query)).filter(([key]) => !(key in (tool.fixed ?? {}))),
  )
  const body = tool.bodyArg && schemas.body ? { [tool.bodyArg]: schemas.body } : entriesOf(schemas.body)
  return v.object({ ...entriesOf(schemas.params), ...query, ...body })
}

/**
 * The JSON Schema an agent sees: what the route accepts as input, with the tool's defaults. A check
 * JSON Schema cannot say (a count of files, a path rule) is left out there and still made on the call.
 */
function inputJsonSchema(tool: Tool, schemas: RouteSchemas): BoundTool["inputSchema"] {
  const schema = jsonSchema(argumentsSchema(tool, schemas), "input")
  for (const [key, value] of Object.entries(tool.defaults ?? {}))
    Object.assign(schema.properties?.[key] as object, { default: value })
  return schema as BoundTool["inputSchema"]
}

/** The success answer's schema: a JSON body's, or a list of an event stream's messages; none for other bodies. */
function answerSchema(responses: Responses | undefined): Schema | undefined {
  const body = responses && statusesOf(responses).find(([status]) => status < 300)?.[1]
  if (!body || !isStream(body)) return body
  return body.message && v.array(body.message)
}

/**
 * The structured answer: MCP wants an object at the top, so a list comes as `{items: [...]}` and
 * any other answer that is not an object as `{value}` (said in the tool's description).
 */
function output(tool: Tool, schemas: RouteSchemas): Pick<BoundTool, "description" | "outputSchema" | "wrap"> {
  const answer = answerSchema(schemas.response)
  if (!answer) return { description: tool.description }
  const schema = jsonSchema(answer, "output")
  if (schema.type === "object")
    return { description: tool.description, outputSchema: schema as BoundTool["outputSchema"] }
  const wrap = schema.type === "array" ? "items" : "value"
  const outputSchema = { type: "object" as const, properties: { [wrap]: schema as object }, required: [wrap] }
  return {
    description: `${tool.description} Its structured answer carries ${wrap === "items" ? "the list" : "the answer"} as {${wrap}}.`,
    outputSchema,
    wrap,
  }
}

/** Each tool with its route's schemas, found among the app's routes. */
export function bindTools(tools: Tool[], rows: readonly RouteRow[]): BoundTool[] {
  return tools.map((tool) => {
    const schemas = routeSchemas(tool, rows)
    return { ...tool, schemas, inputSchema: inputJsonSchema(tool, schemas), ...output(tool, schemas) }
  })
}

/** "query.tail: must be ..." as the route words a refusal (lib/service/app.ts): a bad path parameter is invalid_<parameter>. */
function refusal(part: string, issues: [v.BaseIssue<unknown>, ...v.BaseIssue<unknown>[]]) {
  const path = v.getDotPath(issues[0])
  const code = part === "params" && path ? `invalid_${path.split(".")[0]}` : "invalid_request"
  return invalid(`${path ? `${part}.${path}` : part}: ${issues[0].message}`, code)
}

/**
 * Checks the arguments with the route's schemas, the query as the strings the URL carries; a refusal
 * is the route's own 400.
 */
export function checkArgs(tool: BoundTool, args: Record<string, unknown>): void {
  const split = splitArgs(tool, args)
  const values = { ...split, query: Object.fromEntries(Object.entries(split.query).map(([k, v]) => [k, String(v)])) }
  for (const part of ["params", "query", "body"] as const) {
    const schema = tool.schemas[part]
    const result = schema && v.safeParse(schema, values[part])
    if (result && !result.success) throw refusal(part, result.issues)
  }
}
