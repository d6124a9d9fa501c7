// The parts of the docs that are written from the code, and the check of the hand-written answers.
// `bun scripts/docs.ts` rewrites every block between `<!-- generated: KIND ARGS -->` and
// `<!-- end generated -->` in README.md and docs/*.md:
//   config [PREFIX...] [!PREFIX...]  the environment variables of lib/service/variables.ts (those
//                                    whose name starts with a PREFIX, none starting with a !PREFIX)
//   routes                           every route of /openapi: method, path, role, summary, parameters
// tests/lib/docs.test.ts fails when a page differs from what this writes, and checks the hand-written
// answers: a ```json block after `<!-- response: METHOD PATH [STATUS] [FIELD[]] -->` (FIELD[]: the
// block is one item of that array field), and the `# {...}` lines under a curl call, against the
// route's response schema; an answer elided with `…` is checked on the parts it shows.
import { join } from "node:path"
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import * as v from "valibot"
import { routes as manifest } from "../routes.gen.ts"
import { loadRoutes } from "#lib/service/handler.ts"
import { openapiDocument } from "#lib/service/openapi.ts"
import { VARIABLES, type Variable } from "#lib/service/variables.ts"
import { bodyFor, drift, isStream, statusesOf, type Responses } from "#lib/http/schemas.ts"
import { routeOf } from "#lib/http/manifest.ts"

/** Every route with its handler file loaded: its schemas make the reference. */
const routes = await loadRoutes(manifest)

export const root = join(import.meta.dir, "..")
const BEGIN = /^<!-- generated: ([^>]*?) -->$/
const END = "<!-- end generated -->"

/** The pages the docs are made of, relative to the repository. */
export function docFiles(): string[] {
  return [
    "README.md",
    ...readdirSync(join(root, "docs"))
      .filter((f) => f.endsWith(".md"))
      .sort()
      .map((f) => `docs/${f}`),
  ]
}

// ---- configuration

function shownDefault(v: Variable): string {
  if (v.shown !== undefined) return v.shown
  if (v.default === undefined) return "(none)"
  return `\`${Array.isArray(v.default) ? v.default.join(",") : String(v.default)}\``
}

function configTable(args: string[]): string {
  const take = args.filter((a) => !a.startsWith("!"))
  const drop = args.filter((a) => a.startsWith("!")).map((a) => a.slice(1))
  const rows = Object.entries(VARIABLES as Record<string, Variable>)
    .filter(([name]) => (!take.length || take.some((p) => name.startsWith(p))) && !drop.some((p) => name.startsWith(p)))
    .map(([name, v]) => `| \`${name}\` | ${shownDefault(v)} | ${v.doc} |`)
  return ["| Variable | Default | Meaning |", "|---|---|---|", ...rows].join("\n")
}

// ---- routes

type Json = Record<string, any>
const cell = (s: unknown) =>
  String(s ?? "")
    .replace(/\|/g, "\\|")
    .replace(/\s*\n\s*/g, " ")
const METHOD_ORDER = ["get", "post", "put", "patch", "delete"]

/** The document /openapi answers, which the route reference is written from. */
const apiDocument: Json = await openapiDocument(
  routes,
  { title: "Harbormaster API", version: "docs", description: "" },
  "http://localhost:8080",
)

function parametersOf(op: Json): string {
  const params = ((op.parameters ?? []) as Json[]).map((p) => (p.in === "path" ? `\`${p.name}\`` : `\`?${p.name}\``))
  const body = op.requestBody?.content?.["application/json"]?.schema as Json | undefined
  const fields = Object.keys(body?.properties ?? {}).map((k) =>
    body!.required?.includes(k) ? `\`${k}\`` : `\`${k}?\``,
  )
  if (fields.length) params.push(`body: ${fields.join(", ")}`)
  else if (body) params.push(`body: ${body.type === "array" ? "an array" : "JSON"}`)
  else if (op.requestBody) params.push(`body: ${Object.keys(op.requestBody.content ?? {}).join(", ")}`)
  return params.join("; ")
}

function routesReference(): string {
  const doc = apiDocument
  const byTag = new Map<string, string[]>()
  for (const path of Object.keys(doc.paths).sort()) {
    const ops = doc.paths[path] as Json
    const gateway = path.includes("/proxy/")
    for (const method of METHOD_ORDER.filter((m) => ops[m])) {
      if (gateway && method !== "get") continue
      const op = ops[method] as Json
      const shown = gateway ? "any" : op.responses?.["101"] ? "WS" : method.toUpperCase()
      const tag = (op.tags as string[] | undefined)?.[0] ?? "other"
      const row = `| ${shown} | \`${path}\` | ${op["x-role"]} | ${cell(op.summary)} | ${cell(parametersOf(op))} |`
      byTag.set(tag, [...(byTag.get(tag) ?? []), row])
    }
  }
  const tags = new Map((doc.tags as Json[]).map((t) => [t.name as string, t.description as string]))
  const out: string[] = []
  for (const tag of [...byTag.keys()].sort()) {
    out.push(
      `### ${tag}`,
      "",
      cell(tags.get(tag) ?? tag),
      "",
      "| Method | Path | Role | What it does | Parameters |",
      "|---|---|---|---|---|",
      ...byTag.get(tag)!,
      "",
    )
  }
  return out.join("\n").trimEnd()
}

// ---- the blocks

export function generate(spec: string): string {
  const [kind, ...args] = spec.trim().split(/\s+/)
  if (kind === "config") return configTable(args)
  if (kind === "routes") return routesReference()
  throw new Error(`unknown generated block "${spec}"`)
}

/** The page with every generated block written anew. */
export function render(text: string): string {
  const lines = text.split("\n")
  const out: string[] = []
  for (let i = 0; i < lines.length; i++) {
    const m = BEGIN.exec(lines[i]!)
    out.push(lines[i]!)
    if (!m) continue
    const end = lines.indexOf(END, i + 1)
    if (end < 0) throw new Error(`"${lines[i]}" has no "${END}"`)
    out.push(generate(m[1]!), END)
    i = end
  }
  return out.join("\n")
}

// ---- hand-written answers

export interface Example {
  file: string
  line: number
  method: string
  path: string
  status?: number
  /** A field of the answer whose items the example is one of (`entries` for `entries[]`). */
  item?: string
  /** A ```json block under a `<!-- response: ... -->` marker (else an answer line under a curl call). */
  marked: boolean
  text: string
}

/** The JSON value at the start of `text` (a status may come first), its elisions taken out when it has some; undefined when there is none. */
function leadingJson(text: string): { status?: number; json: unknown; elided: boolean } | undefined {
  const m = /^\s*(?:(\d{3})\s+)?([[{])/.exec(text)
  if (!m) return undefined
  const start = m.index + m[0].length - 1
  let depth = 0
  let inString = false
  for (let i = start; i < text.length; i++) {
    const c = text[i]
    if (inString) {
      if (c === "\\") i++
      else if (c === '"') inString = false
    } else if (c === '"') inString = true
    else if (c === "{" || c === "[") depth++
    else if (c === "}" || c === "]") {
      if (--depth === 0) {
        const status = m[1] ? Number(m[1]) : undefined
        const whole = parsed(text.slice(start, i + 1))
        if (whole) return { status, json: whole.json, elided: false }
        const json = withoutElisions(text.slice(start, i + 1))
        return json === undefined ? undefined : { status, json, elided: true }
      }
    }
  }
  return undefined
}

const ELIDED = "\ue001elided"
const GAP = "\ue000"

/** JSON with `…` (or `...`) outside its strings: an elided value becomes ELIDED, an elided member or item goes; undefined when it still does not parse. */
function withoutElisions(src: string): unknown {
  let out = ""
  let inString = false
  for (let i = 0; i < src.length; i++) {
    const c = src[i]!
    if (inString) {
      out += c
      if (c === "\\") out += src[++i] ?? ""
      else if (c === '"') inString = false
    } else if (c === '"') {
      inString = true
      out += c
    } else if (c === "…" || src.startsWith("...", i)) {
      out += GAP
      if (c !== "…") i += 2
    } else out += c
  }
  const json = out
    .replace(new RegExp(`:\\s*${GAP}`, "g"), `: "${ELIDED}"`)
    .replaceAll(GAP, "")
    .replace(/,(\s*,)+/g, ",")
    .replace(/([[{])\s*,/g, "$1")
    .replace(/,\s*([\]}])/g, "$1")
  return parsed(json)?.json
}

const isType = (type: string, value: unknown) =>
  type === "null"
    ? value === null
    : type === "array"
      ? Array.isArray(value)
      : type === "object"
        ? typeof value === "object" && value !== null && !Array.isArray(value)
        : type === "integer"
          ? Number.isInteger(value)
          : typeof value === type

/** What does not fit a JSON Schema in a value some of whose parts were left out: the parts shown are checked, the missing ones are not asked for. */
function shownParts(schema: Json | undefined, value: unknown, path: string, out: string[]): void {
  if (!schema || value === ELIDED || schema.$ref) return
  const options = (schema.anyOf ?? schema.oneOf) as Json[] | undefined
  if (options) {
    if (
      !options.some((o) => {
        const none: string[] = []
        shownParts(o, value, path, none)
        return !none.length
      })
    )
      out.push(`${path || "(root)"}: fits none of its types`)
    return
  }
  if ("const" in schema && schema.const !== value)
    out.push(`${path || "(root)"}: ${JSON.stringify(value)}, declared ${JSON.stringify(schema.const)}`)
  if (schema.enum && !(schema.enum as unknown[]).includes(value))
    out.push(`${path || "(root)"}: ${JSON.stringify(value)} is not one of ${(schema.enum as unknown[]).join(", ")}`)
  const types = ([] as string[]).concat(schema.type ?? [])
  if (types.length && !types.some((t) => isType(t, value)))
    return void out.push(`${path || "(root)"}: ${JSON.stringify(value)} is not ${types.join(" or ")}`)
  if (Array.isArray(value)) value.forEach((item, i) => shownParts(schema.items, item, `${path}[${i}]`, out))
  else if (value && typeof value === "object")
    for (const [key, field] of Object.entries(value))
      shownParts(
        schema.properties?.[key] ??
          (typeof schema.additionalProperties === "object" ? schema.additionalProperties : undefined),
        field,
        path ? `${path}.${key}` : key,
        out,
      )
}

/** The JSON Schema of a route's answer with that status, from /openapi. */
function answerSchema(row: (typeof routes)[number], status: number): Json | undefined {
  const key = routeOf(row.file).path.replace(/:([^/]+)/g, "{$1}")
  const op = apiDocument.paths[key]?.[row.method === "WS" ? "get" : row.method.toLowerCase()] as Json | undefined
  return op?.responses?.[String(status)]?.content?.["application/json"]?.schema
}

/** The method and path a curl call asks for; undefined for a call piped into another program (its answer is not shown whole). */
function curlTarget(command: string): { method: string; path: string } | undefined {
  if (/\|\s*\w/.test(command.replace(/'[^']*'|"[^"]*"/g, ""))) return undefined
  const url = /(?:https?:\/\/)?[A-Za-z0-9.\-]+:\d+(\/[^\s'"?\\]*)/.exec(command)
  if (!url) return undefined
  const method = /-X\s+([A-Z]+)/.exec(command)?.[1] ?? (/\s(-d|--data)\b/.test(command) ? "POST" : "GET")
  return { method, path: url[1]!.replace(/^\/api\/nodes\/[^/]+\/proxy(?=\/)/, "") }
}

/** The examples of one page: marked ```json blocks, and the answer lines under curl calls in ```sh blocks. */
export function examples(file: string, text: string): Example[] {
  const lines = text.split("\n")
  const found: Example[] = []
  let fence: string | null = null
  let marker: { method: string; path: string; status?: number; item?: string } | null = null
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    if (fence === null) {
      const m = /^<!-- response: ([A-Z]+) (\S+)(?: (\d{3}))?(?: (\w+)\[\])? -->$/.exec(line.trim())
      if (m) marker = { method: m[1]!, path: m[2]!, status: m[3] ? Number(m[3]) : undefined, item: m[4] }
      else if (line.startsWith("```")) {
        fence = line.slice(3).trim()
        if (fence === "json" && marker) {
          const end = lines.indexOf("```", i + 1)
          found.push({ file, line: i + 1, ...marker, marked: true, text: lines.slice(i + 1, end).join("\n") })
        }
        marker = null
      } else if (line.trim()) marker = null
      continue
    }
    if (line.startsWith("```")) {
      fence = null
      continue
    }
    if (fence !== "sh" || !/^\s*curl\s/.test(line)) continue
    // The call with its continuation lines, then the comment lines that follow it.
    let command = line
    let j = i
    while (lines[j]!.trimEnd().endsWith("\\") && j + 1 < lines.length) command += "\n" + lines[++j]!
    if (/<<'?JSON'?/.test(command)) while (j + 1 < lines.length && lines[j]!.trim() !== "JSON") j++
    const target = curlTarget(command.split(/\s#\s/)[0]!)
    const inline = /\s#\s+(.*)$/.exec(lines[j]!)?.[1]
    const comments: string[] = inline ? [inline] : []
    while (j + 1 < lines.length && /^#\s/.test(lines[j + 1]!)) comments.push(lines[++j]!.replace(/^#\s?/, ""))
    // Only comments that begin with an answer (a JSON value, perhaps after its status) are examples.
    if (target && comments.length && /^\s*(?:\d{3}\s+)?[[{]/.test(comments[0]!))
      found.push({ file, line: i + 1, ...target, marked: false, text: comments.join("\n") })
    i = j
  }
  return found
}

const routeRegex = (path: string) => new RegExp(`^${path.replace(/:[^/]+/g, "[^/]+").replace("*", ".*")}$`)

/** The route a request goes to: the one matching with the fewest parameters. */
function routeFor(method: string, path: string) {
  const want = method === "WS" ? "GET" : method
  const concrete = path.replace(/\{[^}]+\}/g, "x")
  return routes
    .filter(
      (r) =>
        (r.method === want || r.method === "ALL" || (r.method === "WS" && want === "GET")) &&
        routeRegex(routeOf(r.file).path).test(concrete),
    )
    .sort(
      (a, b) => (routeOf(a.file).path.match(/[:*]/g)?.length ?? 0) - (routeOf(b.file).path.match(/[:*]/g)?.length ?? 0),
    )[0]
}

/** The schema of one item of an array field of an object schema. */
function itemSchema(schema: any, field: string): v.GenericSchema | undefined {
  while (schema && "wrapped" in schema) schema = schema.wrapped
  let f = schema?.entries?.[field]
  while (f && "wrapped" in f) f = f.wrapped
  return f?.item
}

export type Verdict = { checked: true; why?: string } | { checked: false; why: string }

/** Whether an example fits its route's response schema; `checked: false` when it cannot be told (not whole JSON, no route, no schema). */
export function check(ex: Example): Verdict {
  const lead = ex.marked ? parsed(ex.text) : leadingJson(ex.text)
  if (!lead)
    return ex.marked
      ? { checked: true, why: "the block is not JSON" }
      : { checked: false, why: "not JSON, even with its elisions taken out" }
  const row = routeFor(ex.method, ex.path)
  if (!row)
    return ex.marked ? { checked: true, why: `no route ${ex.method} ${ex.path}` } : { checked: false, why: "no route" }
  const responses = (row.mod as { response?: Responses }).response
  if (!responses) return { checked: false, why: `${ex.method} ${ex.path} declares no response` }
  const status = ex.status ?? lead.status ?? statusesOf(responses)[0]![0]
  const body = bodyFor(responses, status)
  if ("elided" in lead && lead.elided) {
    const schema = answerSchema(row, status)
    if (!schema) return { checked: false, why: `no JSON schema for ${status}` }
    const wrong: string[] = []
    shownParts(schema, lead.json, "", wrong)
    return { checked: true, why: wrong.length ? wrong.slice(0, 5).join("; ") : undefined }
  }
  if (isStream(body)) {
    if (!body.message) return { checked: false, why: "a stream without a message schema" }
    const r = v.safeParse(body.message as v.GenericSchema, lead.json)
    return { checked: true, why: r.success ? undefined : issues(r.issues) }
  }
  if (ex.item) {
    const schema = itemSchema(body, ex.item)
    if (!schema) return { checked: true, why: `the answer has no array field ${ex.item}` }
    const r = v.safeParse(schema, lead.json)
    return { checked: true, why: r.success ? undefined : issues(r.issues) }
  }
  return { checked: true, why: drift(responses, status, "application/json", () => lead.json) }
}

function parsed(text: string): { status?: number; json: unknown } | undefined {
  try {
    return { json: JSON.parse(text) }
  } catch {
    return undefined
  }
}

const issues = (list: v.BaseIssue<unknown>[]) =>
  list
    .slice(0, 5)
    .map((i) => `${v.getDotPath(i) ?? "(root)"}: ${i.message}`)
    .join("; ")

if (import.meta.main) {
  for (const file of docFiles()) {
    const text = readFileSync(join(root, file), "utf8")
    const next = render(text)
    if (next !== text) {
      writeFileSync(join(root, file), next)
      console.log(`wrote ${file}`)
    }
  }
}
