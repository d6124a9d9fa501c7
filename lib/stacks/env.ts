// A stack's environment: entries {key, value, secret}. Secret values are hidden on read (null),
// a null value on write keeps the stored one, and the .env file compose reads is rendered here.
import * as v from "valibot"
import type { Redactor } from "../engine/containers.ts"
import { invalid } from "../errors/errors.ts"

export interface EnvVar {
  key: string
  value: string
  secret: boolean
}

/** An entry as a client sends it: value null keeps the stored value; secret omitted keeps the stored flag (new keys: false). */
export const envInput = v.pipe(
  v.array(
    v.object({
      key: v.pipe(
        v.string(),
        v.regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "an environment key is letters, digits and _, not starting with a digit"),
      ),
      value: v.pipe(v.nullable(v.string()), v.description("null keeps the value stored for this key")),
      secret: v.pipe(v.optional(v.boolean()), v.description("a secret's value is used but never shown again")),
    }),
  ),
  v.description("the whole environment: keys left out are removed"),
)
export type EnvInput = v.InferOutput<typeof envInput>

export const publicEnv = (env: EnvVar[]) =>
  env.map((e) => ({ key: e.key, value: e.secret ? null : e.value, secret: e.secret }))

/** The new environment: `input` replaces `stored`, except that a null value keeps the stored value. */
export function mergeEnv(stored: EnvVar[], input: EnvInput): EnvVar[] {
  const seen = new Set<string>()
  return input.map(({ key, value, secret }) => {
    if (seen.has(key)) throw invalid(`environment key ${key} appears twice`, "invalid_env")
    seen.add(key)
    const old = stored.find((e) => e.key === key)
    if (value === null && !old)
      throw invalid(`environment key ${key} has no stored value to keep (value null)`, "invalid_env")
    return { key, value: value ?? old!.value, secret: secret ?? old?.secret ?? false }
  })
}

export const sameEnv = (a: EnvVar[], b: EnvVar[]) =>
  a.length === b.length &&
  a.every((e) => b.some((o) => o.key === e.key && o.value === e.value && o.secret === e.secret))

/** Keys added, removed and changed (value or secret flag) from `before` to `after`: names only, never values. */
export function envChanges(before: EnvVar[], after: EnvVar[]) {
  const find = (list: EnvVar[], key: string) => list.find((e) => e.key === key)
  return {
    added: after.filter((e) => !find(before, e.key)).map((e) => e.key),
    removed: before.filter((e) => !find(after, e.key)).map((e) => e.key),
    changed: after
      .filter((e) => {
        const o = find(before, e.key)
        return o && (o.value !== e.value || o.secret !== e.secret)
      })
      .map((e) => e.key),
  }
}

/** Whether a key's name matches one of the patterns (`*` any run of characters, case-insensitive): SVC_SECRET_KEYS. */
export function looksSecret(key: string, patterns: readonly string[]): boolean {
  return patterns.some((p) =>
    new RegExp(
      `^${p
        .split("*")
        .map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
        .join(".*")}$`,
      "i",
    ).test(key),
  )
}

export const secretValues = (env: EnvVar[]) => env.filter((e) => e.secret && e.value !== "").map((e) => e.value)

/** A line of a multi-line secret this long or longer (trimmed) is hidden wherever it stands on its own. */
const SECRET_LINE_MIN = 8

/**
 * What `redact` looks for of one secret: the value whole, newlines and all, and escaped as JSON and
 * Go's %q print it (`\"`, `\\`, `\n`: an error message quoting a value); a multi-line value also as
 * text read line by line shows it (line ends as \n, blank lines dropped) and each of its lines of
 * SECRET_LINE_MIN characters or more, which output printed one line at a time shows apart. Shorter
 * lines of a multi-line secret are hidden only where the whole value is.
 */
function termsOf(secret: string): string[] {
  const escaped = JSON.stringify(secret).slice(1, -1)
  if (!secret.includes("\n")) return [secret, escaped]
  const lines = secret.split(/\r?\n/)
  const kept = lines.filter((l) => l.trim()).join("\n")
  return [secret, escaped, kept, ...lines.map((l) => l.trim()).filter((l) => l.length >= SECRET_LINE_MIN)]
}

/**
 * Replaces every secret in a text by "***" (see termsOf for what is matched). Every match is found
 * in the original text and overlapping ones become one "***", so no part of a secret survives next
 * to another it overlaps or contains.
 */
export const redact = (text: string, secrets: readonly string[]): string => redacting(secrets)(text)

/** `redact` with the secrets taken apart once, for many texts. */
export function redacting(secrets: readonly string[]): (text: string) => string {
  const terms = [...new Set(secrets.flatMap(termsOf))].filter((t) => t)
  return (text) => (terms.length ? hide(text, terms) : text)
}

function hide(text: string, terms: readonly string[]): string {
  const spans: [number, number][] = []
  for (const term of terms)
    for (let i = text.indexOf(term); i !== -1; i = text.indexOf(term, i + 1)) spans.push([i, i + term.length])
  if (!spans.length) return text
  spans.sort((a, b) => a[0] - b[0])
  let out = ""
  let at = 0
  for (let i = 0; i < spans.length; ) {
    const start = spans[i]![0]
    let end = spans[i]![1]
    while (++i < spans.length && spans[i]![0] < end) end = Math.max(end, spans[i]![1])
    out += `${text.slice(at, start)}***`
    at = end
  }
  return out + text.slice(at)
}

/** A store's secret values by stack name (the stack store: `Stacks.secrets`). */
export interface SecretSource {
  secrets(name: string): string[]
}

const redactors = new WeakMap<SecretSource, Redactor>()

/**
 * The one redactor of a store: hides each stack's secrets in what is said about its objects (engine
 * events, container records). A value once seen stays hidden for as long as the service runs: a
 * rotated secret still runs in the containers until the stack is applied, and a removed stack's last
 * events (or a failed first deploy's) arrive after its records are gone.
 */
export function redactorFor(store: SecretSource): Redactor {
  let redactor = redactors.get(store)
  if (redactor) return redactor
  /** Per stack, every value seen and the redaction of them all, made again only when a new one comes. */
  const seen = new Map<string, { known: Set<string>; shown: (text: string) => string }>()
  redactor = (project) => {
    const current = store.secrets(project)
    let last = seen.get(project)
    if (!last || current.some((s) => !last!.known.has(s))) {
      const known = new Set([...(last?.known ?? []), ...current])
      if (!known.size) return (text) => text
      seen.set(project, (last = { known, shown: redacting([...known]) }))
    }
    return last.shown
  }
  redactors.set(store, redactor)
  return redactor
}

/**
 * The .env file for the compose CLI. docker-compose v1 parses it with python-dotenv, where a
 * single-quoted value is literal except for \\ and \'; the plugin (compose-go) takes a single-quoted
 * value fully literally and a double-quoted one with \ escapes and \$ for a dollar.
 */
export function renderEnvFile(env: EnvVar[], flavour: "v1" | "v2"): string {
  const quote = (s: string) => {
    if (flavour === "v1") return `'${s.replace(/[\\']/g, (c) => `\\${c}`)}'`
    if (!/['\n]/.test(s)) return `'${s}'`
    return `"${s.replace(/[\\"$]/g, (c) => `\\${c}`).replace(/\n/g, "\\n")}"`
  }
  return env.map((e) => `${e.key}=${quote(e.value)}\n`).join("")
}

export const envRecord = (env: EnvVar[]) => Object.fromEntries(env.map((e) => [e.key, e.value]))
