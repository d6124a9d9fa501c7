// A template as the catalog keeps it, whatever format it came in (Portainer's lists, the folder format
// of our own, the shipped catalog): its words, its variables, and what it installs: a compose file with
// the stack's other files, or a compose file to fetch from a repository. Everything a source says is
// read through `text`, `list` and `variable` below: bounded, trimmed, and of the type it claims, so a
// hostile list can make no field larger or stranger than these allow.

export const VARIABLE_TYPES = ["string", "number", "boolean", "port"] as const
export type VariableType = (typeof VARIABLE_TYPES)[number]

export interface Choice {
  value: string
  label: string
}

export interface Variable {
  /** The environment key it sets (the compose file interpolates `${KEY}`). */
  key: string
  label: string
  description: string
  type: VariableType
  /** Its value unless the form gives one; null for none. */
  default: string | null
  /** The only values it takes (a select in the form); empty for any. */
  choices: Choice[]
  /** Kept as a stack secret: never shown again once installed. */
  secret: boolean
  /** A secret with no value given is generated at install (random, shown once). */
  generate: boolean
  /** The form must give a value (a default counts). */
  required: boolean
}

export type TemplateKind = "container" | "compose" | "swarm"

/** Where a template's compose file lies when the template names a repository (Portainer's stack templates). */
export interface Repository {
  url: string
  /** The compose file's path in the repository. */
  path: string
  ref: string
}

export interface Template {
  /** Unique in its source; a URL segment. */
  id: string
  title: string
  description: string
  categories: string[]
  /** An http(s) URL, or the logo file of a folder template (`inline`), or null. */
  logo: { url: string } | { type: string; data: string } | null
  /** The note shown after install (plain text; `${KEY}` of a non-secret variable is replaced by its value). */
  note: string
  kind: TemplateKind
  /** The version the template names (the folder format's `version`), or null. */
  version: string | null
  variables: Variable[]
  /** The compose file (a container template's is made from it), unless `repository` holds it. */
  compose?: string
  /** The stack's other files (relative path → text). */
  files?: Record<string, string>
  repository?: Repository
  /** Only admins see and install it. */
  admin_only: boolean
  /** What converting it changed, or what to know before installing it. */
  warnings: string[]
}

export const LIMITS = {
  templates: 5000,
  title: 120,
  description: 2000,
  note: 4000,
  categories: 12,
  category: 40,
  variables: 64,
  choices: 100,
  value: 4096,
  url: 2048,
  logoBytes: 256 * 1024,
}

export const TEMPLATE_ID = /^[a-z0-9][a-z0-9-]{0,62}$/
export const ENV_KEY = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/

type Obj = Record<string, unknown>
export const obj = (v: unknown): Obj => (v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : {})

/** A string field: trimmed, control characters out (newlines kept where `lines`), cut at `max`. */
export function text(v: unknown, max: number, lines = false): string {
  const s = typeof v === "string" ? v : typeof v === "number" || typeof v === "boolean" ? String(v) : ""
  const clean = s.replace(lines ? /[\u0000-\u0009\u000b-\u001f\u007f]/g : /[\u0000-\u001f\u007f]/g, " ").trim()
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean
}

/** An array field: at most `max` entries (none when it is not an array). */
export const list = (v: unknown, max: number): unknown[] => (Array.isArray(v) ? v.slice(0, max) : [])

/** A template id made from a title: lower case, dashes, unique among `taken`. */
export function slug(title: string, taken: Set<string>): string {
  const base =
    title
      .toLowerCase()
      .normalize("NFKD")
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 56) || "template"
  let id = /^[a-z0-9]/.test(base) ? base : `t-${base}`
  for (let n = 2; taken.has(id); n++) id = `${base}-${n}`
  taken.add(id)
  return id
}

/** Categories: lower case words, unique, bounded. */
export const categories = (v: unknown): string[] => [
  ...new Set(
    list(v, LIMITS.categories)
      .map((c) => text(c, LIMITS.category).toLowerCase())
      .filter(Boolean),
  ),
]

/** HTML (Portainer's notes may hold it) as plain text: tags out, a few entities back. */
export const plainText = (html: string): string =>
  html
    .replace(/<br\s*\/?>|<\/p>/gi, "\n")
    .replace(/<[^>]*>/g, "")
    .replace(/&nbsp;/g, " ")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, "&")

/** An http(s) URL given by a source (its logo), or null. */
export function httpUrl(v: unknown): string | null {
  const s = text(v, LIMITS.url)
  if (!/^https?:\/\//i.test(s)) return null
  try {
    const u = new URL(s)
    return u.username || u.password ? null : u.href
  } catch {
    return null
  }
}

/** One variable as a source gives it (the folder format's fields), checked; null when its key is not an environment key. */
export function variable(raw: unknown): Variable | null {
  const r = obj(raw)
  const key = text(r.key ?? r.name, 128)
  if (!ENV_KEY.test(key)) return null
  const choices = list(r.choices ?? r.select, LIMITS.choices).flatMap((c): Choice[] => {
    const o = obj(c)
    const value = typeof c === "object" ? text(o.value, LIMITS.value) : text(c, LIMITS.value)
    return value || typeof c !== "object" ? [{ value, label: text(o.label ?? o.text ?? value, LIMITS.title) }] : []
  })
  const selected = list(r.select, LIMITS.choices).find((c) => obj(c).default === true)
  const given = r.default ?? (selected ? obj(selected).value : undefined)
  const type = (VARIABLE_TYPES as readonly string[]).includes(String(r.type)) ? (r.type as VariableType) : "string"
  const secret = r.secret === true || r.type === "password"
  const value = given === undefined || given === null ? null : text(given, LIMITS.value)
  return {
    key,
    label: text(r.label, LIMITS.title) || key,
    description: text(r.description, LIMITS.description),
    type: r.type === "password" ? "string" : type,
    default: value,
    choices,
    secret,
    generate: secret && (r.generate === true || (r.generate !== false && value === null)),
    required: r.required !== false,
  }
}

/** Variables, each key once (the first), bounded. */
export function variables(raw: unknown): Variable[] {
  const seen = new Set<string>()
  return list(raw, LIMITS.variables).flatMap((r) => {
    const v = variable(r)
    if (!v || seen.has(v.key)) return []
    seen.add(v.key)
    return [v]
  })
}

/** A template's content fingerprint: what it installs (compose, files, variables); a change of it is an update. */
export function digestOf(content: { compose: string; files?: Record<string, string> }, vars: Variable[]): string {
  const h = new Bun.CryptoHasher("sha256")
  h.update(content.compose)
  for (const [p, c] of Object.entries(content.files ?? {}).sort(([a], [b]) => (a < b ? -1 : 1)))
    h.update(`\0${p}\0${c}`)
  h.update(`\0${JSON.stringify(vars.map((v) => [v.key, v.default, v.secret, v.choices.map((c) => c.value)]))}`)
  return `sha256:${h.digest("hex")}`
}
