// The app's handle on the editor (ui/editor/main.ts): its code is a page of its own, loaded as a module
// the first time an editor opens, so the first page does not carry CodeMirror.
import type { CodeEditor, EditorOptions, Mode } from "./editor/main.ts"

export type { CodeEditor, Mode }

interface EditorModule {
  create(o: EditorOptions): CodeEditor
  diff(o: { before: string; after: string; labels: [string, string]; mode: Mode }): HTMLElement
  modeOf(name: string): Mode
}

let loading: Promise<EditorModule> | undefined

/** The editor's module, loaded once: its script is the one ui/editor.html names. */
export function editorModule(): Promise<EditorModule> {
  loading ??= (async () => {
    const html = await (await fetch("/editor.html")).text()
    const src = /<script[^>]*\bsrc="([^"]+)"/.exec(html)?.[1]
    if (!src) throw new Error("the editor's page names no script")
    await import(/* @vite-ignore */ new URL(src, location.origin).href)
    return (globalThis as unknown as { hmEditor: EditorModule }).hmEditor
  })().catch((err) => {
    loading = undefined
    throw err
  })
  return loading
}

/** An editor of `text`, its mode from `mode` or from a file's name. */
export async function codeEditor(text: string, label: string, mode: Mode | { file: string }): Promise<CodeEditor> {
  const m = await editorModule()
  return m.create({ text, label, mode: typeof mode === "string" ? mode : m.modeOf(mode.file) })
}

/** Two texts side by side with their changes marked. */
export async function diffView(
  before: string,
  after: string,
  labels: [string, string],
  mode: Mode,
): Promise<HTMLElement> {
  return (await editorModule()).diff({ before, after, labels, mode })
}

/** An editor placed at once: a plain textarea until the editor's module has loaded, then the editor, holding what was typed. */
export interface Editor {
  el: HTMLElement
  value(): string
  set(text: string): void
  /** Compose's own refusal, shown at the line it names (in the textarea, nothing to show it on). */
  refused(message: string): void
}

export function editor(text: string, label: string, mode: Mode | { file: string }): Editor {
  const textarea = document.createElement("textarea")
  textarea.className = "plain-editor"
  textarea.value = text
  textarea.spellcheck = false
  textarea.setAttribute("aria-label", label)
  textarea.setAttribute("wrap", "off")
  const el = document.createElement("div")
  el.className = "code-editor"
  el.append(textarea)
  let code: CodeEditor | undefined
  void codeEditor(textarea.value, label, mode).then(
    (made) => {
      made.set(textarea.value)
      const focused = document.activeElement === textarea
      code = made
      textarea.replaceWith(made.el)
      if (focused) made.focus()
    },
    () => {},
  )
  return {
    el,
    value: () => code?.value() ?? textarea.value,
    set: (t) => (code ? code.set(t) : void (textarea.value = t)),
    refused: (message) => code?.refused(message),
  }
}
