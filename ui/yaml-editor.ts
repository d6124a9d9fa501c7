// The compose editor: a plain <textarea> over a <pre> that shows the same text with YAML
// highlighting. The textarea stays the real input (keyboard, selection, undo, screen readers).
import { h } from "./dom.ts"

const escape = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
const span = (cls: string, s: string) => `<span class="y-${cls}">${escape(s)}</span>`

/** Highlights a scalar value: quoted strings, numbers, booleans/null, ${VAR} interpolation, anchors. */
function scalar(v: string): string {
  const comment = /(^|\s)#.*$/.exec(v)
  const body = comment ? v.slice(0, comment.index + comment[1]!.length) : v
  const tail = comment ? span("comment", v.slice(comment.index + comment[1]!.length)) : ""
  const t = body.trim()
  let html: string
  if (/^(true|false|yes|no|on|off|null|~)$/i.test(t)) html = span("bool", body)
  else if (/^-?\d+(\.\d+)?$/.test(t)) html = span("number", body)
  else if (/^[&*][\w-]+/.test(t)) html = span("anchor", body)
  else if (/^["']/.test(t)) html = span("string", body)
  else
    html = body
      .split(/(\$\{[^}]*\}|\$\w+)/)
      .map((part, i) => (i % 2 ? span("var", part) : escape(part)))
      .join("")
  return html + tail
}

/** One line of YAML as highlighted HTML. */
export function highlightLine(line: string): string {
  if (/^\s*#/.test(line)) return span("comment", line)
  if (/^(---|\.\.\.)\s*$/.test(line)) return span("doc", line)
  const m = /^(\s*)(- )?((?:"[^"]*"|'[^']*'|[^\s:#][^:#]*?)\s*:)(?=\s|$)(.*)$/.exec(line)
  if (m) return `${m[1]}${m[2] ? span("dash", m[2]) : ""}${span("key", m[3]!)}${scalar(m[4]!)}`
  const item = /^(\s*)(- )(.*)$/.exec(line)
  if (item) return `${item[1]}${span("dash", item[2]!)}${scalar(item[3]!)}`
  return scalar(line)
}

export function highlightYaml(text: string): string {
  return text.split("\n").map(highlightLine).join("\n")
}

export interface Editor {
  el: HTMLElement
  textarea: HTMLTextAreaElement
  value(): string
  set(text: string): void
}

export function yamlEditor(initial: string, label: string): Editor {
  const code = h("code")
  const pre = h("pre", { class: "yaml-highlight", "aria-hidden": "true" }, code)
  const textarea = h("textarea", {
    class: "yaml-input",
    spellcheck: false,
    "aria-label": label,
    autocapitalize: "off",
    autocomplete: "off",
    wrap: "off",
  })
  const sync = () => {
    // A trailing newline needs a character after it to take up a line in the <pre>.
    code.innerHTML = highlightYaml(textarea.value) + "\n "
    pre.scrollTop = textarea.scrollTop
    pre.scrollLeft = textarea.scrollLeft
  }
  textarea.addEventListener("input", sync)
  textarea.addEventListener("scroll", () => {
    pre.scrollTop = textarea.scrollTop
    pre.scrollLeft = textarea.scrollLeft
  })
  textarea.value = initial
  sync()
  return {
    el: h("div", { class: "yaml-editor" }, pre, textarea),
    textarea,
    value: () => textarea.value,
    set(text) {
      textarea.value = text
      sync()
    },
  }
}
