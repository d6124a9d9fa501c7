// The compose specification's JSON schema (compose-spec.json, vendored: see README.md) in the editor:
// key completion and hover help from the schema at the cursor's place in the document, and inline
// errors: the YAML parser's, then the schema's (each at the node it names), then compose's own check
// of the file shown at the line its message names.
import type { CompletionContext, CompletionResult } from "@codemirror/autocomplete"
import type { Diagnostic } from "@codemirror/lint"
import type { EditorView } from "@codemirror/view"
import { Validator } from "@cfworker/json-schema"
import { isMap, isPair, isScalar, isSeq, parseDocument, type Node as YamlNode } from "yaml"
import schema from "./compose-spec.json"

type JsonSchema = {
  $ref?: string
  type?: string | string[]
  description?: string
  properties?: Record<string, JsonSchema>
  patternProperties?: Record<string, JsonSchema>
  additionalProperties?: boolean | JsonSchema
  items?: JsonSchema
  oneOf?: JsonSchema[]
  anyOf?: JsonSchema[]
  allOf?: JsonSchema[]
  deprecated?: boolean
}

const root = schema as unknown as JsonSchema & { definitions: Record<string, JsonSchema> }
const validator = new Validator(schema as never, "7", false)

const deref = (s: JsonSchema | undefined): JsonSchema | undefined =>
  s?.$ref?.startsWith("#/definitions/") ? deref(root.definitions[s.$ref.slice(14)]) : s

/** The schemas a value at `s` may have: its alternatives, each dereferenced. */
function alternatives(s: JsonSchema | undefined): JsonSchema[] {
  const d = deref(s)
  if (!d) return []
  const more = [...(d.oneOf ?? []), ...(d.anyOf ?? []), ...(d.allOf ?? [])].flatMap(alternatives)
  return [d, ...more]
}

/** The schema of the child `key` (a name, or an index) of a value of schema `s`. */
function child(s: JsonSchema, key: string | number): JsonSchema | undefined {
  for (const alt of alternatives(s)) {
    if (typeof key === "number") {
      if (alt.items) return alt.items
      continue
    }
    if (alt.properties?.[key]) return alt.properties[key]
    for (const [pattern, sub] of Object.entries(alt.patternProperties ?? {}))
      if (new RegExp(pattern).test(key)) return sub
    if (typeof alt.additionalProperties === "object") return alt.additionalProperties
  }
  return undefined
}

/** The schema at a path of keys from the document's root. */
export function schemaAt(path: (string | number)[]): JsonSchema | undefined {
  let s: JsonSchema | undefined = root
  for (const key of path) {
    s = s && child(s, key)
    if (!s) return undefined
  }
  return s
}

/** The keys a mapping of schema `s` may hold, with their help. */
function keysOf(s: JsonSchema): { key: string; info?: string; deprecated?: boolean }[] {
  const seen = new Map<string, { key: string; info?: string; deprecated?: boolean }>()
  for (const alt of alternatives(s))
    for (const [key, sub] of Object.entries(alt.properties ?? {}))
      if (!seen.has(key))
        seen.set(key, { key, info: deref(sub)?.description ?? sub.description, deprecated: deref(sub)?.deprecated })
  return [...seen.values()]
}

/**
 * The path of keys to the mapping the offset `at` is in, found from the indentation of the lines
 * above it (the document may not parse while it is typed): each line less indented than the one
 * before names a key on the way.
 */
export function pathAt(text: string, at: number): { path: string[]; indent: number } {
  const lines = text.slice(0, at).split("\n")
  const current = lines.pop() ?? ""
  const indent = current.length - current.trimStart().length
  const path: string[] = []
  let limit = indent
  for (let i = lines.length - 1; i >= 0 && limit > 0; i--) {
    const line = lines[i]!
    if (!line.trim() || line.trimStart().startsWith("#")) continue
    const lead = line.length - line.trimStart().length
    if (lead >= limit) continue
    const m = /^\s*(?:-\s+)?("?)([^"#:\s][^"#:]*?)\1\s*:(\s|$)/.exec(line)
    if (m) path.unshift(m[2]!)
    limit = lead
  }
  return { path, indent }
}

/** The schema of the mapping at `path`, walking through names the schema takes as patterns (a service's name). */
const mappingAt = (path: string[]) => schemaAt(path)

export function completeKeys(context: CompletionContext): CompletionResult | null {
  const word = context.matchBefore(/[\w.-]*/)
  const line = context.state.doc.lineAt(context.pos)
  const before = line.text.slice(0, context.pos - line.from)
  if (!/^\s*(-\s+)?[\w.-]*$/.test(before) || (!word?.text && !context.explicit)) return null
  const { path } = pathAt(context.state.doc.toString(), context.pos)
  const s = mappingAt(path)
  if (!s) return null
  const options = keysOf(s).map((k) => ({
    label: k.key,
    type: "property",
    info: k.info,
    apply: `${k.key}: `,
    ...(k.deprecated && { boost: -1 }),
  }))
  return options.length ? { from: word?.from ?? context.pos, options, validFor: /^[\w.-]*$/ } : null
}

/** The help for the key under `pos`, if the schema has some. */
export function hoverText(text: string, pos: number): { from: number; to: number; text: string } | null {
  const lineStart = text.lastIndexOf("\n", pos - 1) + 1
  const lineEnd = text.indexOf("\n", pos)
  const line = text.slice(lineStart, lineEnd < 0 ? undefined : lineEnd)
  const m = /^(\s*(?:-\s+)?)("?)([^"#:\s][^"#:]*?)\2\s*:/.exec(line)
  if (!m) return null
  const from = lineStart + m[1]!.length + m[2]!.length
  const to = from + m[3]!.length
  if (pos < from || pos > to) return null
  const { path } = pathAt(text, lineStart + m[1]!.length)
  const s = deref(child(mappingAt(path) ?? {}, m[3]!))
  const help = s?.description ?? alternatives(s).find((a) => a.description)?.description
  return help ? { from, to, text: `${m[3]}: ${help}` } : null
}

/** The node at a JSON pointer ("#/services/web/ports/0") of the document, for its range. */
function nodeAt(doc: ReturnType<typeof parseDocument>, pointer: string): YamlNode | undefined {
  const keys = pointer
    .replace(/^#\/?/, "")
    .split("/")
    .filter(Boolean)
    .map((k) => decodeURIComponent(k.replace(/~1/g, "/").replace(/~0/g, "~")))
  let node: unknown = doc.contents
  let last: YamlNode | undefined = doc.contents ?? undefined
  for (const key of keys) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === key)
      if (!pair) break
      last = (pair.key as YamlNode) ?? last
      node = pair.value
    } else if (isSeq(node)) node = node.items[Number(key)]
    else break
    if (node && typeof node === "object" && "range" in (node as object)) last = node as YamlNode
  }
  return last
}

/** The YAML parser's errors and the schema's, as the linter shows them. */
export function composeDiagnostics(text: string): Diagnostic[] {
  const doc = parseDocument(text, { merge: true, uniqueKeys: false })
  const out: Diagnostic[] = []
  for (const e of doc.errors) {
    const [from, to] = e.pos
    out.push({ from, to: Math.max(to, from + 1), severity: "error", message: e.message.split("\n")[0]! })
  }
  if (out.length || !text.trim()) return out
  const value = doc.toJS({ maxAliasCount: 100 })
  if (!value || typeof value !== "object") return out
  const seen = new Set<string>()
  for (const e of validator.validate(value).errors) {
    // The deepest errors say the most; the ones that only sum up a branch (oneOf, $ref) are left out.
    if (
      ["properties", "$ref", "oneOf", "anyOf", "allOf", "patternProperties", "additionalProperties"].includes(
        e.keyword,
      ) &&
      !/not allowed|additional/i.test(e.error)
    )
      continue
    const node = nodeAt(doc, e.instanceLocation)
    const [from, to] = node?.range ?? [0, 1]
    const key = `${from}:${e.error}`
    if (seen.has(key)) continue
    seen.add(key)
    out.push({ from, to: Math.max(to, from + 1), severity: "error", message: e.error, source: "compose specification" })
  }
  return out
}

/** Compose's own refusal of the file, at the line its message names ("line 5", "yaml: line 5:"), else at the top. */
export function composeMessage(view: EditorView, message: string): Diagnostic {
  const line = Number(/line (\d+)/.exec(message)?.[1])
  const doc = view.state.doc
  const at = line >= 1 && line <= doc.lines ? doc.line(line) : doc.line(1)
  return { from: at.from, to: Math.max(at.to, at.from + 1), severity: "error", message, source: "compose" }
}
