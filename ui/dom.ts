// A tiny DOM toolkit: element builder, loading/empty/error states, tables, dialogs and toasts.
import { HttpError } from "#lib/http/http-error.ts"

type Child = Node | string | number | null | undefined | false | Child[]
type Props = Record<string, unknown>

/** Builds an element: `on*` props become listeners, `class`/`for`/`aria-*`/`data-*` attributes, the rest properties. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props | null = null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag)
  for (const [key, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === null || value === false) continue
    if (key.startsWith("on") && typeof value === "function") el.addEventListener(key.slice(2), value as EventListener)
    else if (key === "class" || key === "for" || key === "role" || key.includes("-"))
      el.setAttribute(key, value === true ? "" : String(value))
    else (el as any)[key] = value
  }
  append(el, children)
  return el
}

function append(el: Node, children: Child[]) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue
    if (Array.isArray(c)) append(el, c)
    else el.appendChild(typeof c === "object" ? c : document.createTextNode(String(c)))
  }
}

/** Replaces an element's children. */
export function render(el: Element, ...children: Child[]): void {
  el.replaceChildren()
  append(el, children)
}

export const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err))

/** Messages given so far (toasts and error boxes): an action that ends without one of its own says "done". */
let messages = 0

/** What an answer's status means, in words. */
function statusWords(status: number): string {
  if (status === 0) return "The stream failed"
  if (status === 401) return "Not signed in"
  if (status === 403) return "Not allowed for your role"
  if (status === 404) return "Not found"
  if (status === 409) return "Not possible now"
  if (status === 413) return "Too large"
  if (status === 429) return "Too many requests; try again shortly"
  if (status < 500) return "Refused"
  if (status === 502) return "The engine or a node failed"
  if (status === 503) return "Unavailable"
  if (status === 504) return "It took too long"
  return "The service failed"
}

/** An error in words: what went wrong, then the service's own message (a fetch that never reached it says so). */
export function errorWords(err: unknown): { title: string; message: string; code: string | null } {
  if (err instanceof HttpError)
    return {
      title: statusWords(err.status),
      message: err.message,
      code: err.status ? `${err.status} ${err.code}` : err.code,
    }
  if (err instanceof TypeError) return { title: "The service cannot be reached", message: err.message, code: null }
  return { title: "Failed", message: errorText(err), code: null }
}

export function errorBox(err: unknown, retry?: () => void): HTMLElement {
  messages++
  const { title, message, code } = errorWords(err)
  return h(
    "div",
    { class: "error", role: "alert" },
    h("strong", null, `${title}:`),
    " ",
    message,
    code && h("small", { class: "error-code" }, ` (${code})`),
    retry && h("button", { class: "small", onclick: retry }, "Retry"),
  )
}

export const loading = (what = "Loading") => h("p", { class: "loading", "aria-busy": "true" }, `${what}…`)
export const empty = (text: string) => h("p", { class: "empty" }, text)

/** Loads data into `el` with a loading state, an error state with retry, then `view(data)`. Returns the reload function. */
export function load<T>(el: Element, fetcher: () => Promise<T>, view: (data: T) => Child): () => Promise<void> {
  let first = true
  const run = async () => {
    if (first) render(el, loading())
    first = false
    try {
      const data = await fetcher()
      render(el, view(data))
    } catch (err) {
      if ((err as Error)?.name === "AbortError") return
      render(
        el,
        errorBox(err, () => void run()),
      )
    }
  }
  void run()
  return run
}

export interface Column<T> {
  title: string
  cell: (row: T) => Child
  class?: string
}

export function table<T>(rows: T[], columns: Column<T>[], emptyText: string, caption?: string): HTMLElement {
  if (!rows.length) return empty(emptyText)
  return h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      null,
      caption && h("caption", { class: "sr-only" }, caption),
      h(
        "thead",
        null,
        h(
          "tr",
          null,
          columns.map((c) => h("th", { scope: "col", class: c.class }, c.title)),
        ),
      ),
      h(
        "tbody",
        null,
        rows.map((r) =>
          h(
            "tr",
            null,
            columns.map((c) => h("td", { class: c.class, "data-label": c.title }, c.cell(r))),
          ),
        ),
      ),
    ),
  )
}

/**
 * The role a control needs (`data-needs`): with sign-in on, what the signed-in role may not do is
 * not shown (style.css, by the body's `data-role`).
 */
export type Needs = "operator" | "admin"

/**
 * A button that runs an async action: disabled and marked busy while it runs (style.css shows it
 * turning), optional confirmation (with an optional checkbox, whose state `run` receives); it ends in
 * a message: its own (a toast or an error box from `run` or `done`), else "<label>: done", and a
 * failure in words with the service's message. `label` names it fully for assistive technology ("Delete web-1"). It needs the operator
 * role unless `needs` says admin, or null for anyone signed in.
 */
export function action(
  label: string,
  run: (option: boolean) => Promise<unknown>,
  opts: {
    confirm?: string
    option?: string
    class?: string
    done?: (result: any) => void
    label?: string
    needs?: Needs | null
  } = {},
): HTMLButtonElement {
  const button = h(
    "button",
    {
      type: "button",
      class: opts.class ?? "small",
      "aria-label": opts.label,
      "data-needs": opts.needs === undefined ? "operator" : opts.needs,
    },
    label,
  )
  button.addEventListener("click", async () => {
    const answer = opts.confirm ? await confirmDialog(opts.confirm, opts.option) : { option: false }
    if (!answer) return
    button.disabled = true
    button.setAttribute("aria-busy", "true")
    const said = messages
    try {
      const result = await run(answer.option)
      opts.done?.(result)
      if (messages === said) toast(`${opts.label ?? label}: done`)
    } catch (err) {
      const { title, message } = errorWords(err)
      toast(`${opts.label ?? label} failed. ${title}: ${message}`, "error")
    } finally {
      button.disabled = false
      button.removeAttribute("aria-busy")
    }
  })
  return button
}

/** A modal <dialog>; resolves when it closes. */
export function modal(title: string, body: Child, buttons: (close: (value: string) => void) => Child): Promise<string> {
  const dialog = h("dialog", { class: "modal", "aria-label": title })
  const close = (value: string) => dialog.close(value)
  render(
    dialog,
    h("h2", null, title),
    h("div", { class: "modal-body" }, body),
    h("div", { class: "modal-actions" }, buttons(close)),
  )
  document.body.appendChild(dialog)
  dialog.showModal()
  return new Promise((resolve) =>
    dialog.addEventListener("close", () => {
      dialog.remove()
      resolve(dialog.returnValue)
    }),
  )
}

/** Asks for a confirmation; false when refused, else the state of the optional checkbox. */
export async function confirmDialog(message: string, option?: string): Promise<false | { option: boolean }> {
  const box = h("input", { type: "checkbox" })
  const answer = await modal(
    "Please confirm",
    [h("p", null, message), option && h("label", { class: "check" }, box, " ", option)],
    (close) => [
      h("button", { type: "button", onclick: () => close("no") }, "Cancel"),
      h("button", { type: "button", class: "danger", onclick: () => close("yes") }, "Confirm"),
    ],
  )
  return answer === "yes" && { option: box.checked }
}

export function toast(message: string, kind: "info" | "error" = "info"): void {
  messages++
  const region = document.getElementById("toasts")!
  const t = h("div", { class: `toast ${kind}`, role: kind === "error" ? "alert" : "status" }, message)
  region.appendChild(t)
  setTimeout(() => t.remove(), kind === "error" ? 8000 : 4000)
}

/** A state badge whose colour follows the state's name. */
export const badge = (state: string) =>
  h("span", { class: `badge state-${state.toLowerCase().replace(/[^a-z]+/g, "-")}` }, state)

export function bytes(n: number | undefined): string {
  if (n === undefined || n === null || Number.isNaN(n)) return "—"
  const units = ["B", "KB", "MB", "GB", "TB"]
  let i = 0
  while (n >= 1000 && i < units.length - 1) (n /= 1000), i++
  return `${n.toFixed(i && n < 10 ? 1 : 0)} ${units[i]}`
}

export function when(t: string | number | undefined): string {
  if (t === undefined || t === null || t === "") return "—"
  const d = typeof t === "number" ? new Date(t < 1e12 ? t * 1000 : t) : new Date(t)
  return Number.isNaN(d.getTime()) ? String(t) : d.toLocaleString()
}

/** Copies text to the clipboard, falling back to a selection when the clipboard API is unavailable (plain http). */
export async function copyText(text: string, field?: HTMLInputElement): Promise<void> {
  try {
    await navigator.clipboard.writeText(text)
  } catch {
    field?.select()
    document.execCommand("copy")
  }
  toast("Copied to the clipboard")
}
