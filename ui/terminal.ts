// A terminal: xterm.js over a shell WebSocket (a container's, or the host's). Keystrokes go out as binary frames (raw
// bytes for the PTY); a resize goes out as a text frame {"type":"resize","cols","rows"}.
import { FitAddon } from "@xterm/addon-fit"
import { Terminal } from "@xterm/xterm"
import { socketUrl } from "./api.ts"
import { h } from "./dom.ts"

/** The terminal of the socket at the API path `path` (/containers/{id}/shell, /host/shell). */
export function terminal(path: string, signal: AbortSignal): HTMLElement {
  const host = h("div", { class: "term-host" })
  const status = h("p", { class: "term-status", role: "status" }, "Connecting…")
  const term = new Terminal({
    cursorBlink: true,
    fontSize: 14,
    fontFamily: "ui-monospace, Menlo, Consolas, monospace",
    theme: { background: "#0f1419" },
  })
  const fit = new FitAddon()
  term.loadAddon(fit)
  const encoder = new TextEncoder()
  let ws: WebSocket | undefined

  const sendSize = () => {
    if (ws?.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: "resize", cols: term.cols, rows: term.rows }))
  }
  const resize = () => {
    try {
      fit.fit()
    } catch {}
  }
  const observer = new ResizeObserver(resize)

  // Opened once the element is in the document (xterm measures its cells there).
  queueMicrotask(() => {
    term.open(host)
    resize()
    observer.observe(host)
    ws = new WebSocket(`${socketUrl(path)}?cols=${term.cols}&rows=${term.rows}`)
    ws.binaryType = "arraybuffer"
    ws.onopen = () => {
      status.textContent = "Connected"
      sendSize()
      term.focus()
    }
    ws.onmessage = (e) => term.write(typeof e.data === "string" ? e.data : new Uint8Array(e.data))
    ws.onclose = (e) => {
      status.textContent = `Disconnected${e.reason ? `: ${e.reason}` : e.code !== 1000 && e.code !== 1005 ? ` (code ${e.code})` : ""}`
    }
    ws.onerror = () => (status.textContent = "The shell connection failed")
    term.onData((d) => ws?.readyState === WebSocket.OPEN && ws.send(encoder.encode(d)))
    term.onResize(sendSize)
  })

  signal.addEventListener("abort", () => {
    observer.disconnect()
    ws?.close()
    term.dispose()
  })
  return h("section", { class: "shell" }, status, host)
}
