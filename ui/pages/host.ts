// A terminal on the host itself (admins; the service's SVC_HOST_SHELL turns it on): the same xterm.js
// terminal as a container's, over WS /api/host/shell. Through the node switcher it is the node's.
import { errorBox, h, render } from "../dom.ts"

export function hostPage(main: HTMLElement, _: Record<string, string>, signal: AbortSignal): void {
  const pane = h("div", { class: "pane" })
  render(
    main,
    h("h1", null, "Host terminal"),
    h(
      "p",
      { class: "muted" },
      "A login shell on the server itself, as the user SVC_HOST_SHELL names. Closing this page ends it and everything it started.",
    ),
    pane,
  )
  render(pane, h("p", { class: "loading" }, "Loading the terminal…"))
  import("../terminal.ts").then(
    ({ terminal }) => signal.aborted || render(pane, terminal("/host/shell", signal)),
    (err) => render(pane, errorBox(err)),
  )
}
