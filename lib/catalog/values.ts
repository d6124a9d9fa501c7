// A template's variables filled in: the form's values checked against each variable's type and
// choices, defaults taken, secrets generated where none was given, every mistake named by its key
// (400 `invalid_values` with `fields`, shown beside each field of the form).
import { invalid } from "../errors/errors.ts"
import type { EnvVar } from "../stacks/env.ts"
import { LIMITS, type Variable } from "./template.ts"

/** A random secret: 24 bytes as 32 characters of base64url. */
export const randomSecret = (): string => Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString("base64url")

function problem(v: Variable, value: string): string | null {
  if (value.length > LIMITS.value) return `at most ${LIMITS.value} characters`
  if (v.choices.length && !v.choices.some((c) => c.value === value))
    return `one of ${v.choices.map((c) => c.value).join(", ")}`
  if (v.type === "number" && !/^-?\d+(\.\d+)?$/.test(value)) return "a number"
  if (v.type === "port" && !(/^\d{1,5}$/.test(value) && Number(value) >= 1 && Number(value) <= 65535))
    return "a port from 1 to 65535"
  if (v.type === "boolean" && value !== "true" && value !== "false") return "true or false"
  return null
}

export interface Filled {
  env: (EnvVar & { generated: boolean })[]
}

/** The environment of `variables` with `given` values; 400 `invalid_values` naming each wrong field. */
export function fill(variables: Variable[], given: Record<string, string> = {}): Filled {
  const fields: Record<string, string> = {}
  for (const key of Object.keys(given))
    if (!variables.some((v) => v.key === key)) fields[key] = "not a variable of this template"
  const env = variables.map((v) => {
    const typed = given[v.key]
    let value = typed ?? v.default ?? ""
    let generated = false
    if (v.secret && v.generate && (typed === undefined || typed === "") && !value) {
      value = randomSecret()
      generated = true
    }
    if (value === "" && v.required && !v.choices.some((c) => c.value === "")) fields[v.key] = "required"
    else if (value !== "" || v.choices.length) {
      const wrong = problem(v, value)
      if (wrong) fields[v.key] = `must be ${wrong}`
    }
    return { key: v.key, value, secret: v.secret, generated }
  })
  if (Object.keys(fields).length)
    throw invalid(
      `the values do not fit the template: ${Object.entries(fields)
        .map(([k, m]) => `${k}: ${m}`)
        .join("; ")}`,
      "invalid_values",
      { fields: { fields } },
    )
  return { env }
}

/** A note with `${KEY}` of each non-secret variable replaced by its value. */
export const renderNote = (note: string, env: EnvVar[]): string =>
  note.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (whole, key: string) => {
    const e = env.find((x) => x.key === key)
    return e && !e.secret ? e.value : whole
  })
