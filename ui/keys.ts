// Keyboard shortcuts: "/" focuses the page's search box, "g" then a letter goes to a page, "?" lists
// them; Esc closes a dialog (the browser's own for a modal <dialog>) and the phone's open menu. None
// of them acts while a field, the terminal or a dialog has the keys.
import { h, modal } from "./dom.ts"

const GO: Record<string, [hash: string, page: string]> = {
  d: ["#/", "Dashboard"],
  c: ["#/containers", "Containers"],
  s: ["#/stacks", "Stacks"],
  i: ["#/images", "Images"],
}
/** How long after "g" its second key counts. */
const CHORD_MS = 1500

const typing = (t: EventTarget | null) =>
  t instanceof HTMLElement && (t.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(t.tagName))
const shown = (el: HTMLElement) => el.getClientRects().length > 0

function help(): void {
  const keys: [string, string][] = [
    ["/", "Search the page's list"],
    ...Object.entries(GO).map(([k, [, page]]): [string, string] => [`g ${k}`, `Go to ${page}`]),
    ["Esc", "Close a dialog or the menu"],
    ["?", "This list"],
  ]
  void modal(
    "Keyboard shortcuts",
    h(
      "dl",
      { class: "facts keys" },
      keys.map(([k, what]) => [h("dt", null, h("kbd", null, k)), h("dd", null, what)]),
    ),
    (close) => h("button", { type: "button", onclick: () => close("close") }, "Close"),
  )
}

/** Listens for the shortcuts; `closeMenu` closes the phone's menu when it is open, and says whether it was. */
export function keyboard(closeMenu: () => boolean): void {
  let chord = 0
  document.addEventListener("keydown", (e) => {
    if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey) return
    if (e.key === "Escape") {
      if (closeMenu()) e.preventDefault()
      return
    }
    if (typing(e.target) || document.querySelector("dialog[open]")) return
    const go = chord && performance.now() - chord < CHORD_MS ? GO[e.key] : undefined
    chord = e.key === "g" ? performance.now() : 0
    if (go) {
      e.preventDefault()
      location.hash = go[0]
    } else if (e.key === "/") {
      const search = [...document.querySelectorAll<HTMLInputElement>('input[type="search"]')].find(shown)
      if (!search) return
      e.preventDefault()
      search.focus()
      search.select()
    } else if (e.key === "?") {
      e.preventDefault()
      help()
    }
  })
}
