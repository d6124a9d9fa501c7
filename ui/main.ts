// The single-page app: hash routes to pages, the navigation, and the server switcher that sends
// every page's calls to a node through the control plane's gateway.
import { currentNode, get, setNode } from "./api.ts"
import { h, render } from "./dom.ts"
import { clusterPage } from "./pages/cluster.ts"
import { containerPage, containersPage } from "./pages/containers.ts"
import { dashboardPage } from "./pages/dashboard.ts"
import { imagesPage } from "./pages/images.ts"
import { networksPage, prunePage, volumesPage } from "./pages/resources.ts"
import { speechPage } from "./pages/speech.ts"
import { volumeFilesPage } from "./pages/files.ts"
import { hostPage } from "./pages/host.ts"
import { newStackPage, stackPage, stacksPage } from "./pages/stacks.ts"
import { auditPage } from "./pages/audit.ts"
import { backupsPage } from "./pages/backups.ts"
import { alertsPage } from "./pages/alerts.ts"
import { registriesPage } from "./pages/registries.ts"
import { catalogPage, templatePage } from "./pages/catalog.ts"
import { swarmPage, swarmServicePage } from "./pages/swarm.ts"
import { signInPage } from "./pages/signin.ts"
import { enrolPage, secondStepPage } from "./pages/factors.ts"
import { tokensPage } from "./pages/tokens.ts"
import { accountPage } from "./pages/account.ts"
import { showUser, whoAmI } from "./session.ts"
import { keyboard } from "./keys.ts"

export type Page = (main: HTMLElement, params: Record<string, string>, signal: AbortSignal) => void

const routes: [RegExp, Page][] = [
  [/^\/$/, dashboardPage],
  [/^\/containers$/, containersPage],
  [/^\/containers\/(?<id>[^/]+)(?:\/(?<tab>logs|shell|stats|files|changes))?$/, containerPage],
  [/^\/stacks$/, stacksPage],
  [/^\/stacks-new$/, newStackPage],
  [/^\/stacks\/(?<name>[^/]+)(?:\/(?<tab>[a-z]+))?$/, stackPage],
  [/^\/images$/, imagesPage],
  [/^\/volumes$/, volumesPage],
  [/^\/volumes\/(?<name>[^/]+)\/files$/, volumeFilesPage],
  [/^\/host$/, hostPage],
  [/^\/networks$/, networksPage],
  [/^\/prune$/, prunePage],
  [/^\/cluster$/, clusterPage],
  [/^\/swarm$/, swarmPage],
  [/^\/backups$/, backupsPage],
  [/^\/alerts$/, alertsPage],
  [/^\/registries$/, registriesPage],
  [/^\/catalog$/, catalogPage],
  [/^\/catalog\/(?<source>[^/]+)\/(?<id>[^/]+)$/, templatePage],
  [/^\/swarm\/services\/(?<id>[^/]+)$/, swarmServicePage],
  [/^\/speech$/, speechPage],
  [/^\/tokens$/, tokensPage],
  [/^\/account$/, accountPage],
  [/^\/audit$/, auditPage],
]

const main = document.getElementById("main")!
const nav = document.getElementById("nav")!
const menu = document.getElementById("menu")!
const nodeSelect = document.getElementById("node") as HTMLSelectElement
let current: AbortController | undefined
let shownSection: string | undefined

function route(): void {
  current?.abort()
  current = new AbortController()
  for (const d of document.querySelectorAll<HTMLDialogElement>("dialog.modal")) d.close()
  // After a "?": a list's search, filters and sort (ui/lists.ts), read by its page.
  const path = location.hash.replace(/^#/, "").split("?")[0] || "/"
  const section = "/" + (path.split("/")[1] ?? "")
  for (const a of nav.querySelectorAll("a")) {
    const target = a.getAttribute("href")!.slice(1)
    if (target === (section.startsWith("/stacks") ? "/stacks" : section)) a.setAttribute("aria-current", "page")
    else a.removeAttribute("aria-current")
  }
  nav.classList.remove("open")
  menu.setAttribute("aria-expanded", "false")
  for (const [pattern, page] of routes) {
    const m = pattern.exec(path)
    if (!m) continue
    const params = Object.fromEntries(
      Object.entries(m.groups ?? {}).map(([k, v]) => [k, v === undefined ? "" : decodeURIComponent(v)]),
    )
    render(main)
    page(main, params, current.signal)
    // A new page (not a tab of the same one) takes the focus, so keyboard and screen reader users start at its top.
    if (shownSection !== undefined && shownSection !== section) main.focus({ preventScroll: true })
    shownSection = section
    return
  }
  render(
    main,
    h("h1", null, "Not found"),
    h("p", null, "No page at ", h("code", null, path), ". ", h("a", { href: "#/" }, "Back to the dashboard")),
  )
}

/** Fills the server switcher from this server's node registry (a server with no nodes shows only itself). */
async function loadNodes(): Promise<void> {
  const nodes: { name: string; status?: string }[] = await get("/nodes", { local: true }).catch(() => [])
  const list = Array.isArray(nodes) ? nodes : []
  const selected = currentNode()
  render(
    nodeSelect,
    h("option", { value: "" }, "This server"),
    list.map((n) =>
      h(
        "option",
        { value: n.name, selected: n.name === selected },
        `${n.name}${n.status && n.status !== "online" ? ` (${n.status})` : ""}`,
      ),
    ),
  )
  if (selected && !list.some((n) => n.name === selected)) setNode(null)
  nodeSelect.closest("label")!.hidden = list.length === 0
  document.body.classList.toggle("on-node", Boolean(currentNode()))
}

/** With sign-in on, nobody signed in sees the sign-in page only; a session that ends later brings it back. */
async function start(): Promise<void> {
  // A server that cannot say (an old one behind the gateway, an error) is treated as sign-in off: each page says what fails.
  const session = await whoAmI().catch(() => ({ state: "off" }) as const)
  if (session.state === "signed-out") {
    document.body.dataset.signedOut = ""
    if (session.pending === "second_factor") return secondStepPage(main)
    if (session.pending === "enrol") return enrolPage(main)
    return signInPage(main, session.modes)
  }
  if (session.state === "signed-in") {
    showUser(document.getElementById("user")!, session.me)
    addEventListener("hm:signed-out", () => location.reload())
    if (session.me.enrol) {
      document.body.dataset.signedOut = ""
      return enrolPage(main)
    }
  }
  addEventListener("hashchange", route)
  addEventListener("hm:nodes-changed", () => void loadNodes())
  void loadNodes()
  route()
}

nodeSelect.addEventListener("change", () => {
  setNode(nodeSelect.value || null)
  document.body.classList.toggle("on-node", Boolean(currentNode()))
  route()
})
menu.addEventListener("click", () => {
  const open = nav.classList.toggle("open")
  menu.setAttribute("aria-expanded", String(open))
})
keyboard(() => {
  if (!nav.classList.contains("open")) return false
  nav.classList.remove("open")
  menu.setAttribute("aria-expanded", "false")
  menu.focus()
  return true
})
void start()
