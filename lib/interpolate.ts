// Compose's variable substitution in one string: `$$` is a dollar, `$VAR` and `${VAR}` the value
// (empty when unset), `${VAR:-default}` / `${VAR-default}` a default when unset or empty / unset,
// `${VAR:+alt}` / `${VAR+alt}` an alternative when set, `${VAR:?err}` / `${VAR?err}` the value.
const PATTERN = /\$(?:(\$)|([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-+?])([^}]*))?\})/g

export function interpolate(text: string, env: Record<string, string>): string {
  return text.replace(PATTERN, (_m, dollar: string | undefined, bare: string | undefined, name: string | undefined, colon: string, op: string | undefined, word = "") => {
    if (dollar) return "$"
    const key = (bare ?? name)!
    const value = Object.hasOwn(env, key) ? env[key] : undefined
    const set = colon ? value !== undefined && value !== "" : value !== undefined
    if (op === "-") return set ? value! : interpolate(word, env)
    if (op === "+") return set ? interpolate(word, env) : ""
    return value ?? ""
  })
}
