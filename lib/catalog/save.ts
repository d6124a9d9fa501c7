// A stack saved as a template of the folder format: its compose file, its other files, and a manifest
// whose variables are the stack's environment: a secret becomes a variable generated at install and
// its value is left out, every other key a variable with its value as the default. A literal value
// in the compose file's `environment` under a key that looks secret (SVC_SECRET_KEYS) is taken out
// too: it becomes `${KEY}` and a generated secret variable.
import { parseDocument, stringify, isMap, isSeq, isScalar } from "yaml"
import { looksSecret, type EnvVar } from "../stacks/env.ts"
import { YAML_OPTIONS } from "../stacks/yaml.ts"
import { COMPOSE, MANIFEST } from "./folder.ts"
import type { Unsecreted } from "./parse.ts"
import { ENV_KEY } from "./template.ts"

/** The compose file with each literal secret of a service's environment made `${KEY}` (run on the worker). */
export function unsecret(compose: string, patterns: string[]): Unsecreted {
  const doc = parseDocument(compose, YAML_OPTIONS)
  const keys = new Set<string>()
  const services = doc.get("services")
  if (!isMap(services)) return { compose, keys: [] }
  const secretLiteral = (key: string, value: unknown) =>
    ENV_KEY.test(key) && looksSecret(key, patterns) && typeof value === "string" && value !== "" && !value.includes("$")
  for (const item of services.items) {
    const env = isMap(item.value) ? item.value.get("environment") : undefined
    if (isMap(env))
      for (const pair of env.items) {
        const key = String(isScalar(pair.key) ? pair.key.value : pair.key)
        const value = isScalar(pair.value) ? pair.value.value : undefined
        if (!secretLiteral(key, typeof value === "number" ? String(value) : value)) continue
        pair.value = doc.createNode(`\${${key}}`)
        keys.add(key)
      }
    else if (isSeq(env))
      env.items.forEach((entry, i) => {
        const text = isScalar(entry) ? String(entry.value) : ""
        const at = text.indexOf("=")
        if (at < 1 || !secretLiteral(text.slice(0, at), text.slice(at + 1))) return
        env.set(i, doc.createNode(`${text.slice(0, at)}=\${${text.slice(0, at)}}`))
        keys.add(text.slice(0, at))
      })
  }
  return { compose: keys.size ? doc.toString({ lineWidth: 0 }) : compose, keys: [...keys] }
}

export interface SaveInput {
  title: string
  description: string
  categories: string[]
}

/** The template folder's files (relative path → text) for a stack's compose file, environment and files. */
export function templateFiles(
  stack: { compose: string; env: EnvVar[]; files: Record<string, string> },
  extraSecrets: string[],
  input: SaveInput,
  patterns: readonly string[],
): Record<string, string> {
  const env = new Map(stack.env.map((e) => [e.key, e]))
  const keys = [...new Set([...stack.env.map((e) => e.key), ...extraSecrets])]
  const variables = keys.map((key) => {
    const e = env.get(key)
    const secret = !e || e.secret || looksSecret(key, patterns)
    return secret ? { key, label: key, secret: true } : { key, label: key, default: e.value }
  })
  const manifest = {
    title: input.title,
    description: input.description,
    categories: input.categories,
    version: "1",
    variables,
  }
  return {
    [MANIFEST]: stringify(manifest, { lineWidth: 0 }),
    [COMPOSE]: stack.compose,
    ...Object.fromEntries(Object.entries(stack.files).map(([p, c]) => [`files/${p}`, c])),
  }
}
