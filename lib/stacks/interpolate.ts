// Compose's variable substitution in one string, nested defaults included: `$$` is a dollar, `$VAR`
// and `${VAR}` the value (empty when unset), `${VAR:-default}` / `${VAR-default}` a default when
// unset or empty / unset, `${VAR:+alt}` / `${VAR+alt}` an alternative when set, `${VAR:?err}` /
// `${VAR?err}` the value; a default or alternative may itself hold `${...}` (compose v2 reads
// `${A:-${B:-x}}` that way; v1 refuses it, so the nested reading is the one that can run).
//
// Used only where compose cannot be asked: the files compose reads while it loads a project
// (`env_file`, `extends.file`, `include`) are gone from the model it prints, so lib/stacks/model.ts
// finds them in the file itself before compose reads them. Everything else the service knows about a
// stack comes from compose's own model.

/** The end (index of the closing brace) of the `${` that opens at `start`, braces balanced; -1 when unclosed. */
function closing(text: string, start: number): number {
  let depth = 0
  for (let i = start; i < text.length; i++) {
    if (text[i] === "$" && text[i + 1] === "$") i++
    else if (text[i] === "$" && text[i + 1] === "{") {
      depth++
      i++
    } else if (text[i] === "}" && --depth === 0) return i
  }
  return -1
}

export function interpolate(text: string, env: Record<string, string>): string {
  let out = ""
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (c !== "$") {
      out += c
      continue
    }
    const next = text[i + 1]
    if (next === "$") {
      out += "$"
      i++
      continue
    }
    const bare = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i + 1))
    if (bare) {
      out += env[bare[0]] ?? ""
      i += bare[0].length
      continue
    }
    if (next !== "{") {
      out += c
      continue
    }
    const end = closing(text, i)
    if (end < 0) {
      out += text.slice(i)
      break
    }
    const inner = text.slice(i + 2, end)
    const m = /^([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-+?])([\s\S]*))?$/.exec(inner)
    i = end
    if (!m) continue
    const [, key, colon, op, word = ""] = m as unknown as [string, string, string, string | undefined, string?]
    const value = Object.hasOwn(env, key) ? env[key] : undefined
    const set = colon ? value !== undefined && value !== "" : value !== undefined
    if (op === "-") out += set ? value! : interpolate(word, env)
    else if (op === "+") out += set ? interpolate(word, env) : ""
    else out += value ?? ""
  }
  return out
}
