// A live log view over an SSE log stream: lines follow as they come, a search box filters them,
// pause holds new lines back (counted) until resumed; lines of a stack are coloured by service.
import { follow } from "./api.ts"
import { errorBox, h, render } from "./dom.ts"

const MAX_LINES = 5000

/** A stable hue for a service name. */
export function serviceHue(name: string): number {
  let x = 0
  for (const ch of name) x = (x * 31 + ch.charCodeAt(0)) >>> 0
  return x % 360
}

interface Line {
  service?: string
  container?: string
  stream?: string
  ts?: string
  line: string
}

export function logView(path: string, signal: AbortSignal, opts: { byService?: boolean } = {}): HTMLElement {
  const out = h("div", {
    class: "log-lines",
    role: "log",
    "aria-live": "off",
    tabindex: "0",
    "aria-label": "Log lines",
  })
  const status = h("span", { class: "log-status", role: "status" }, "Connecting…")
  const search = h("input", { type: "search", placeholder: "Filter lines", "aria-label": "Filter log lines" })
  const pauseButton = h("button", { type: "button", class: "small", "aria-pressed": "false" }, "Pause")
  const problems = h("div")
  const held: Line[] = []
  let paused = false
  let count = 0

  // Searches the service and the line, not the time stamp.
  const matches = (row: HTMLElement) => !search.value || (row.dataset.text ?? "").includes(search.value.toLowerCase())

  const add = (l: Line) => {
    const stick = out.scrollTop + out.clientHeight >= out.scrollHeight - 8
    const row = h(
      "div",
      { class: `log-line ${l.stream === "stderr" ? "stderr" : ""}` },
      l.ts && h("time", { class: "log-ts" }, l.ts.slice(11, 23)),
      opts.byService &&
        l.service &&
        h("span", { class: "log-service", style: `color: hsl(${serviceHue(l.service)} 70% 45%)` }, l.service),
      h("span", { class: "log-text" }, l.line),
    )
    row.dataset.text = `${l.service ?? ""} ${l.line}`.toLowerCase()
    row.hidden = !matches(row)
    out.appendChild(row)
    if (out.childElementCount > MAX_LINES) out.firstElementChild!.remove()
    if (stick) out.scrollTop = out.scrollHeight
  }

  const showStatus = () =>
    (status.textContent = paused
      ? `Paused, ${held.length} new line${held.length === 1 ? "" : "s"} held`
      : `Following, ${count} line${count === 1 ? "" : "s"}`)

  search.addEventListener("input", () => {
    for (const row of out.children) (row as HTMLElement).hidden = !matches(row as HTMLElement)
  })
  pauseButton.addEventListener("click", () => {
    paused = !paused
    pauseButton.textContent = paused ? "Resume" : "Pause"
    pauseButton.setAttribute("aria-pressed", String(paused))
    if (!paused) held.splice(0).forEach(add)
    showStatus()
  })

  void follow(
    path,
    (l: Line) => {
      count++
      if (paused) held.push(l)
      else add(l)
      showStatus()
    },
    (err) => render(problems, errorBox(err)),
    signal,
  ).then(() => {
    if (!signal.aborted && !problems.childElementCount) status.textContent = `Stream ended, ${count} lines`
  })
  showStatus()

  return h(
    "section",
    { class: "logs" },
    h(
      "div",
      { class: "toolbar" },
      search,
      pauseButton,
      h("button", { type: "button", class: "small", onclick: () => out.replaceChildren() }, "Clear"),
      status,
    ),
    problems,
    out,
  )
}
