// The one editor for every text (CodeMirror 6): YAML, JSON, env and INI modes, the compose
// specification's completion, hover help and inline errors for a compose file, and a side-by-side
// diff. A page of its own (ui/editor.html), which the app loads only when an editor opens
// (ui/code-editor.ts), so the first page does not carry it. Keyboard as in a textarea: Tab leaves the
// editor (it never traps the focus); the editor's own keys (undo, search, completion with
// Ctrl-Space, the next error with F8) come on top.
import { autocompletion, closeBrackets, closeBracketsKeymap, completionKeymap } from "@codemirror/autocomplete"
import { defaultKeymap, history, historyKeymap } from "@codemirror/commands"
import { json } from "@codemirror/lang-json"
import { yaml } from "@codemirror/lang-yaml"
import {
  bracketMatching,
  HighlightStyle,
  indentOnInput,
  StreamLanguage,
  syntaxHighlighting,
} from "@codemirror/language"
import { tags as t } from "@lezer/highlight"
import { properties } from "@codemirror/legacy-modes/mode/properties"
import { type Diagnostic, linter, lintGutter, lintKeymap, setDiagnostics } from "@codemirror/lint"
import { MergeView } from "@codemirror/merge"
import { highlightSelectionMatches, searchKeymap } from "@codemirror/search"
import { EditorState, type Extension } from "@codemirror/state"
import {
  drawSelection,
  EditorView,
  highlightActiveLine,
  highlightActiveLineGutter,
  hoverTooltip,
  keymap,
  lineNumbers,
} from "@codemirror/view"
import { completeKeys, composeDiagnostics, composeMessage, hoverText } from "./compose.ts"

export type Mode = "yaml" | "compose" | "json" | "env" | "ini" | "text"

export interface EditorOptions {
  text: string
  /** The accessible name of the text ("Compose file", "File conf/app.ini"). */
  label: string
  mode: Mode
  readOnly?: boolean
}

export interface CodeEditor {
  el: HTMLElement
  value(): string
  set(text: string): void
  /** Compose's own refusal of the text, shown at the line it names. */
  refused(message: string): void
  focus(): void
}

const theme = EditorView.theme({
  "&": {
    height: "24rem",
    border: "1px solid var(--line)",
    borderRadius: "8px",
    background: "var(--code)",
    color: "var(--fg)",
  },
  "&.cm-focused": { outline: "2px solid var(--accent)", outlineOffset: "2px" },
  ".cm-scroller": { fontFamily: "ui-monospace, Menlo, Consolas, monospace", fontSize: "13px", lineHeight: "1.5" },
  ".cm-gutters": { background: "var(--card)", color: "var(--muted)", borderRight: "1px solid var(--line)" },
  ".cm-activeLine, .cm-activeLineGutter": { background: "color-mix(in srgb, var(--accent) 8%, transparent)" },
  ".cm-content": { caretColor: "var(--fg)" },
  ".cm-tooltip": { background: "var(--card)", color: "var(--fg)", border: "1px solid var(--line)", maxWidth: "32rem" },
  ".cm-diagnosticText": { whiteSpace: "pre-wrap" },
})

/** The colours of the text: the classes style.css gives a contrast that holds in light and in dark. */
const colours = HighlightStyle.define([
  { tag: [t.propertyName, t.definition(t.propertyName), t.definition(t.variableName)], class: "y-key" },
  { tag: [t.string, t.special(t.string), t.attributeValue, t.content], class: "y-string" },
  { tag: [t.number, t.bool, t.null, t.atom], class: "y-number" },
  { tag: [t.comment, t.lineComment, t.blockComment], class: "y-comment" },
  { tag: [t.keyword, t.typeName, t.labelName, t.meta, t.documentMeta, t.special(t.name)], class: "y-anchor" },
  { tag: [t.invalid], class: "y-var" },
])

/** The language of a mode. */
function language(mode: Mode): Extension[] {
  if (mode === "compose")
    return [
      yaml(),
      autocompletion({ override: [completeKeys] }),
      hoverTooltip((view, pos) => {
        const help = hoverText(view.state.doc.toString(), pos)
        if (!help) return null
        return {
          pos: help.from,
          end: help.to,
          create: () => {
            const dom = document.createElement("div")
            dom.className = "cm-help"
            dom.textContent = help.text
            return { dom }
          },
        }
      }),
      linter((view) => composeDiagnostics(view.state.doc.toString()), { delay: 400 }),
    ]
  if (mode === "yaml") return [yaml()]
  if (mode === "json") return [json()]
  if (mode === "env" || mode === "ini") return [StreamLanguage.define(properties)]
  return []
}

/** The mode of a file by its name. */
export function modeOf(name: string): Mode {
  const n = name.toLowerCase()
  if (/(^|\/)(docker-)?compose[^/]*\.ya?ml$/.test(n)) return "compose"
  if (/\.ya?ml$/.test(n)) return "yaml"
  if (/\.json$/.test(n)) return "json"
  if (/(^|\/)\.env(\.|$)|\.env$/.test(n)) return "env"
  if (/\.(ini|conf|cfg|properties|toml)$/.test(n)) return "ini"
  return "text"
}

function extensions(o: EditorOptions): Extension[] {
  return [
    lineNumbers(),
    highlightActiveLineGutter(),
    history(),
    drawSelection(),
    indentOnInput(),
    bracketMatching(),
    closeBrackets(),
    highlightActiveLine(),
    highlightSelectionMatches(),
    lintGutter(),
    syntaxHighlighting(colours),
    keymap.of([
      ...closeBracketsKeymap,
      ...defaultKeymap,
      ...searchKeymap,
      ...historyKeymap,
      ...completionKeymap,
      ...lintKeymap,
    ]),
    // tabindex: the text is in the tab order already (contenteditable); said so that a checker counts the
    // scrolled region as reached by keyboard (a long line at a phone's width scrolls it sideways).
    EditorView.contentAttributes.of({ "aria-label": o.label, "aria-multiline": "true", tabindex: "0" }),
    EditorState.tabSize.of(2),
    EditorState.readOnly.of(!!o.readOnly),
    theme,
    ...language(o.mode),
  ]
}

export function create(o: EditorOptions): CodeEditor {
  const view = new EditorView({ doc: o.text, extensions: extensions(o) })
  return {
    el: view.dom,
    value: () => view.state.doc.toString(),
    set: (text) => view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } }),
    refused: (message) => {
      const found: Diagnostic[] = [composeMessage(view, message)]
      view.dispatch(setDiagnostics(view.state, found))
    },
    focus: () => view.focus(),
  }
}

/** Two texts side by side, the changes marked: `before` on the left, `after` on the right, both read-only. */
export function diff(o: { before: string; after: string; labels: [string, string]; mode: Mode }): HTMLElement {
  const side = (text: string, label: string) => ({
    doc: text,
    extensions: extensions({ text, label, mode: o.mode === "compose" ? "yaml" : o.mode, readOnly: true }),
  })
  const view = new MergeView({ a: side(o.before, o.labels[0]), b: side(o.after, o.labels[1]) })
  view.dom.classList.add("diff")
  return view.dom
}

;(globalThis as { hmEditor?: unknown }).hmEditor = { create, diff, modeOf }
