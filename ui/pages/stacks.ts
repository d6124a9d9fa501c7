// Stacks: the list with state; a new stack from the compose editor; one stack's services, compose
// file with its other files (a list beside the editor), environment (secrets hidden, "pending" until applied), versions and merged logs; copy.
import { currentNode, del, enc, get, post, put, reloadOnChange } from "../api.ts"
import { action, badge, bytes, empty, errorBox, errorText, h, load, modal, render, table, toast, when } from "../dom.ts"
import { logView } from "../logs.ts"
import {
  stack,
  stackRows,
  type AllStats,
  type Health,
  type Image,
  type StackListAnswer,
  type StackRow,
  type ComposeFile,
  type CopyPlan,
  type EnvVar,
  type FileEntry,
  type Policy,
  type Stack,
  type StackAnswer,
  type StackUpdated,
  type StackVersion,
  type UpdateCheck,
  type UpdateHistory,
  type UpdateOutcome,
} from "../model.ts"
import { diffView, editor as codeEditor } from "../code-editor.ts"
import { containerTable } from "./containers.ts"
import { adoptProjectDialog } from "./adopt.ts"
import { swarmServices } from "./swarm.ts"
import { gitCard } from "./stack-git.ts"
import { templateCard } from "./stack-template.ts"
import { percent, sparkline, stackResources } from "../stats.ts"
import { listView, type BulkAction } from "../list-view.ts"
import type { ListSpec } from "../lists.ts"

const TEMPLATE = `services:
  web:
    image: nginx:alpine
    restart: unless-stopped
    ports:
      - "8080:80"
    environment:
      GREETING: \${GREETING}
    volumes:
      - data:/data

volumes:
  data:
`

const NAME = /^[a-z0-9][a-z0-9_-]*$/

const pendingMark = () =>
  h("span", { class: "badge pending", title: "The environment changed and is not applied yet" }, "env pending")
const filesPendingMark = () =>
  h("span", { class: "badge pending", title: "The stack's files changed and are not applied yet" }, "files pending")
/** A stack file's path: relative, each part a name (letters, digits, '.', '_', '-'; not starting with '.'). */
const FILE_PATH = /^[A-Za-z0-9_][A-Za-z0-9._-]*(\/[A-Za-z0-9_][A-Za-z0-9._-]*)*$/
/** A stack file's path in a URL: each part encoded, the slashes kept. */
const encPath = (p: string) => p.split("/").map(enc).join("/")

/** The stack-wide operations; each refreshes the view when done. A row of the list offers the frequent ones (its selection has Delete). */
function stackActions(s: Stack, refresh: () => void, where: "list" | "page"): HTMLElement {
  const page = where === "page"
  const can = (a: Stack["actions"][number]) => s.actions.includes(a)
  const op = (label: string, path: string) =>
    action(label, () => post(`/stacks/${enc(s.name)}/${path}`), {
      done: () => (toast(`${label}: ${s.name} done`), refresh()),
      label: `${label} ${s.name}`,
    })
  return h(
    "div",
    { class: "actions" },
    // Only the actions the stack's orchestrator has a meaning for (a swarm keeps its tasks running).
    can("start") && s.state !== "running" && op("Start", "start"),
    can("stop") && s.state !== "stopped" && op("Stop", "stop"),
    can("restart") && op("Restart", "restart"),
    page &&
      (s.state === "paused"
        ? can("unpause") && op("Unpause", "unpause")
        : can("pause") && s.state !== "stopped" && op("Pause", "pause")),
    action("Update", () => post<StackUpdated>(`/stacks/${enc(s.name)}/update`), {
      label: `Update ${s.name}`,
      done: (r) => (
        toast(
          verdictText(s.name, r.update),
          r.update?.verdict === "rolled_back" || r.update?.verdict === "rollback_failed" ? "error" : "info",
        ),
        refresh()
      ),
    }),
    s.external &&
      h(
        "button",
        {
          type: "button",
          class: "small primary",
          "aria-label": `Adopt ${s.name}`,
          "data-needs": "operator",
          onclick: () => void adoptProjectDialog(s.name, refresh),
        },
        "Adopt…",
      ),
    page &&
      action("Delete", (volumes) => del(`/stacks/${enc(s.name)}${volumes ? "?volumes=true" : ""}`), {
        class: "small danger",
        label: `Delete ${s.name}`,
        confirm: `Delete stack ${s.name}? Its containers, networks and files are removed.`,
        option: "Also remove its named volumes and their data",
        done: () => {
          toast(`Deleted stack ${s.name}`)
          location.hash = "#/stacks"
        },
      }),
  )
}

const HEALTH_ORDER: Record<Health, number> = { degraded: 0, stopped: 1, running: 2 }

const stackSpec: ListSpec<StackRow> = {
  text: (s) => `${s.name} ${s.health} ${s.services.map((x) => x.name).join(" ")} ${s.git?.url ?? ""} ${s.orchestrator}`,
  filters: {
    health: {
      label: "Health",
      choices: [
        ["running", "Running"],
        ["degraded", "Degraded"],
        ["stopped", "Stopped"],
      ],
      test: (s, v) => s.health === v,
    },
    kind: {
      label: "Kind",
      choices: [
        ["managed", "Managed here"],
        ["unmanaged", "Not managed (adoptable)"],
        ["git", "From git"],
        ["swarm", "On the swarm"],
      ],
      test: (s, v) =>
        v === "managed" ? !s.external : v === "unmanaged" ? s.external : v === "git" ? !!s.git : s.orchestrator === v,
    },
    needs: {
      label: "Needs",
      choices: [
        ["update", "An update"],
        ["cve", "Critical or high CVEs"],
      ],
      test: (s, v) => (v === "update" ? s.updates.length > 0 : v === "cve" ? s.cves.critical + s.cves.high > 0 : true),
    },
  },
  sorts: {
    name: { label: "Name", value: (s) => s.name },
    health: { label: "Health (worst first)", value: (s) => HEALTH_ORDER[s.health] },
    cpu: { label: "CPU", value: (s) => s.cpu, desc: true },
    memory: { label: "Memory", value: (s) => s.memory, desc: true },
    cves: { label: "CVEs", value: (s) => s.cves.critical * 1e6 + s.cves.high, desc: true },
    version: { label: "Version", value: (s) => s.currentVersion, desc: true },
  },
}

/** The stack's name with its markers: git, the orchestrator of one run on its nodes (the swarm), not managed here. */
const nameCell = (s: StackRow) => [
  h("a", { href: `#/stacks/${enc(s.name)}` }, s.name),
  s.git &&
    h(
      "span",
      {
        class: "badge marker",
        title: `${s.git.url} (${s.git.ref})${s.git.last_verdict ? `, last sync: ${s.git.last_verdict}` : ""}`,
      },
      "git",
    ),
  s.runsOn === "nodes" && h("span", { class: "badge marker" }, s.orchestrator),
  s.external && h("span", { class: "badge marker" }, "not managed"),
]

/** Pending updates and the images' critical and high CVEs. */
const imageBadges = (s: StackRow) => {
  const marks = [
    s.updates.length > 0 && h("span", { class: "badge update", title: `Newer: ${s.updates.join(", ")}` }, "update"),
    s.cves.critical > 0 &&
      h("a", { class: "sev sev-critical", href: "#/images?scan=critical" }, `${s.cves.critical} critical`),
    s.cves.high > 0 && h("a", { class: "sev sev-high", href: "#/images?scan=high" }, `${s.cves.high} high`),
  ].filter(Boolean)
  return marks.length ? h("span", { class: "sev-list" }, marks) : "—"
}

const usageCell = (s: StackRow, kind: "cpu" | "mem") =>
  s.health === "stopped" || s.runsOn !== "engine"
    ? "—"
    : h(
        "span",
        { class: "spark-cell" },
        sparkline(
          kind === "cpu" ? s.cpuHistory : s.memHistory,
          `${kind === "cpu" ? "CPU" : "Memory"} of ${s.name}, last hour`,
          kind,
          kind === "cpu" ? 100 : 0,
        ),
        h(
          "span",
          { class: "spark-value" },
          kind === "cpu" ? percent(s.cpu) : s.memory === null ? "—" : bytes(s.memory),
        ),
      )

const stackBulk: BulkAction<StackRow>[] = [
  {
    label: "Start",
    done: "started",
    applies: (s) => s.actions.includes("start") && s.state !== "running",
    run: (s) => post(`/stacks/${enc(s.name)}/start`),
  },
  {
    label: "Stop",
    done: "stopped",
    applies: (s) => s.actions.includes("stop") && s.state !== "stopped",
    run: (s) => post(`/stacks/${enc(s.name)}/stop`),
  },
  {
    label: "Restart",
    done: "restarted",
    applies: (s) => s.actions.includes("restart"),
    run: (s) => post(`/stacks/${enc(s.name)}/restart`),
  },
  {
    label: "Delete",
    done: "deleted",
    danger: true,
    warning: "Their containers, networks and files are removed; named volumes stay.",
    applies: (s) => !s.external,
    run: (s) => del(`/stacks/${enc(s.name)}`),
  },
]

/** The offer to adopt compose projects made elsewhere: a link to them alone. */
const adoptOffer = (rows: StackRow[]) => {
  const n = rows.filter((s) => s.external).length
  return n
    ? h(
        "p",
        { class: "offer" },
        `${n} compose project${n === 1 ? " runs" : "s run"} here without being managed. `,
        h("a", { href: "#/stacks?kind=unmanaged" }, "Show them"),
        ": Adopt… makes each a stack with versions, updates and backups.",
      )
    : null
}

export function stacksPage(main: HTMLElement, _: Record<string, string>, signal: AbortSignal): void {
  const status = h("div")
  const offer = h("div")
  const view = listView<StackRow>({
    noun: "stacks",
    spec: stackSpec,
    columns: [
      { title: "Name", sort: "name", cell: nameCell },
      {
        title: "Health",
        sort: "health",
        cell: (s) => [
          badge(s.health),
          s.state !== s.health && h("small", { class: "muted" }, ` ${s.state}`),
          s.envPending && pendingMark(),
          s.filesPending && filesPendingMark(),
        ],
      },
      { title: "CPU", sort: "cpu", cell: (s) => usageCell(s, "cpu") },
      { title: "Memory", sort: "memory", cell: (s) => usageCell(s, "mem") },
      { title: "Images", sort: "cves", cell: imageBadges },
      { title: "Version", sort: "version", cell: (s) => s.currentVersion ?? "—" },
      { title: "Actions", class: "row-actions", cell: (s) => stackActions(s, () => void reload(), "list") },
    ],
    key: (s) => s.name,
    name: (s) => s.name,
    bulk: stackBulk,
    empty: "No stacks yet. Create one from a compose file.",
    changed: () => void reload(),
  })
  render(
    main,
    h(
      "div",
      { class: "page-head" },
      h("h1", null, "Stacks"),
      h("a", { class: "button", href: "#/stacks-new", "data-needs": "operator" }, "New stack"),
      h("button", { type: "button", onclick: () => void reload() }, "Refresh"),
    ),
    view.tools,
    offer,
    status,
    view.body,
  )
  const reload = load(
    status,
    // Resource use and the images' state complete the list; a server without them (an older node) still lists its stacks.
    () =>
      Promise.all([
        get<StackListAnswer[]>("/stacks", { signal }),
        get<AllStats>(`/stats?history=true&points=30`, { signal }).catch(() => null),
        get<Image[]>("/images", { signal }).catch(() => []),
      ]),
    ([list, stats, images]) => {
      const rows = stackRows(list, stats, images)
      render(offer, adoptOffer(rows))
      view.show(rows)
      return null
    },
  )
  reloadOnChange(reload, signal)
}

export function newStackPage(main: HTMLElement): void {
  const name = h("input", {
    id: "stack-name",
    required: true,
    pattern: NAME.source,
    autocomplete: "off",
    placeholder: "my-app",
  })
  const editor = codeEditor(TEMPLATE, "Compose file", "compose")
  const problems = h("div")
  const deploy = action(
    "Deploy",
    async () => {
      render(problems)
      if (!NAME.test(name.value))
        return render(
          problems,
          errorBox(
            new Error("A stack name is lowercase letters, digits, '-' and '_', starting with a letter or digit."),
          ),
        )
      try {
        await post("/stacks", { name: name.value, content: editor.value() })
      } catch (err) {
        editor.refused(errorText(err))
        return render(problems, errorBox(err))
      }
      toast(`Deployed ${name.value}`)
      location.hash = `#/stacks/${enc(name.value)}`
    },
    { class: "primary" },
  )
  render(
    main,
    h("p", null, h("a", { href: "#/stacks" }, "← Stacks")),
    h("h1", null, "New stack"),
    h("div", { class: "field" }, h("label", { for: "stack-name" }, "Name"), name),
    h("div", { class: "field" }, h("span", { class: "label" }, "Compose file"), editor.el),
    problems,
    h("div", { class: "actions" }, deploy),
  )
}

const TABS = ["overview", "compose", "env", "versions", "updates", "logs", "resources"] as const
const TAB_NAMES: Record<string, string> = {
  overview: "Overview",
  compose: "Compose",
  env: "Environment",
  versions: "Versions",
  updates: "Updates",
  logs: "Logs",
  resources: "Resources",
}

export function stackPage(main: HTMLElement, params: Record<string, string>, signal: AbortSignal): void {
  const name = params.name!
  const tab = (TABS as readonly string[]).includes(params.tab!) ? params.tab! : "overview"
  const head = h("div")
  const pane = h("div", { class: "pane" })
  render(
    main,
    h("p", null, h("a", { href: "#/stacks" }, "← Stacks")),
    head,
    gitCard(name, signal, () => void refreshHead()),
    templateCard(name, signal, () => void refreshHead()),
    h(
      "div",
      { class: "tabs", role: "navigation", "aria-label": "Stack views" },
      TABS.map((t) =>
        h("a", { href: `#/stacks/${enc(name)}/${t}`, "aria-current": t === tab ? "page" : false }, TAB_NAMES[t]),
      ),
    ),
    pane,
  )
  let current: Stack | undefined
  const refreshHead = load(
    head,
    () => get<StackAnswer>(`/stacks/${enc(name)}`, { signal }),
    (data) => {
      current = stack(data)
      const s = current
      if (tab === "overview")
        render(
          pane,
          servicesView(s, () => void refreshHead(), signal),
        )
      return h(
        "div",
        { class: "page-head" },
        h("h1", null, s.name),
        badge(s.state),
        s.envPending && pendingMark(),
        s.filesPending && filesPendingMark(),
        s.recovered &&
          h("span", { class: "badge pending", title: `${s.recovered.time}: ${s.recovered.message}` }, "recovered"),
        s.currentVersion !== null && h("span", { class: "muted" }, `version ${s.currentVersion}`),
        stackActions(s, () => void refreshHead(), "page"),
        h(
          "div",
          { class: "actions" },
          action("Scan images", () => post(`/stacks/${enc(name)}/scan`), {
            done: () => toast("Scan started; results appear on the Images page"),
          }),
          action("Check for updates", () => post<UpdateCheck>(`/stacks/${enc(name)}/check-update`), {
            done: (r) => toast(updateText(r)),
          }),
          h(
            "button",
            { type: "button", class: "small", "data-needs": "operator", onclick: () => void copyDialog(name) },
            "Copy…",
          ),
        ),
      )
    },
  )
  if (tab === "overview") {
    render(pane, h("p", { class: "loading" }, "Loading…"))
    reloadOnChange(refreshHead, signal)
  }
  if (tab === "compose") composeView(pane, name, signal, () => void refreshHead())
  if (tab === "env") envView(pane, name, signal, () => void refreshHead())
  if (tab === "versions") versionsView(pane, name, signal, () => void refreshHead())
  if (tab === "updates") updatesView(pane, name, signal)
  if (tab === "logs") render(pane, logView(`/stacks/${enc(name)}/logs?follow=true`, signal, { byService: true }))
  if (tab === "resources") stackResources(pane, name, signal)
}

/** A guarded update's verdict in one sentence. */
function verdictText(name: string, u: UpdateOutcome | undefined): string {
  if (!u) return `Update: ${name} done`
  const text: Record<UpdateOutcome["verdict"], string> = {
    updated: "updated",
    rolled_back: "rolled back",
    rollback_failed: "rollback failed",
    unchanged: "unchanged (nothing newer)",
  }
  return [`${name}: ${text[u.verdict]}`, u.reason, u.fix && `Fix by hand: ${u.fix}`].filter(Boolean).join(". ")
}

/** The update policy (editable), the last verdict and the history of guarded updates. */
function updatesView(pane: HTMLElement, name: string, signal: AbortSignal): void {
  const reload = load(
    pane,
    async () =>
      [
        await get<Policy>(`/stacks/${enc(name)}/policy`, { signal }),
        await get<UpdateHistory>(`/stacks/${enc(name)}/updates`, { signal }),
      ] as const,
    ([policy, data]) => {
      const mode = h(
        "select",
        { id: "policy-mode" },
        ["off", "notify", "apply"].map((m) => h("option", { value: m, selected: policy.auto_update === m }, m)),
      )
      const schedule = h("input", {
        id: "policy-schedule",
        value: policy.schedule ?? "",
        placeholder: "6h or 0 4 * * * (empty: SVC_UPDATE_INTERVAL)",
      })
      const watch = h("input", {
        id: "policy-watch",
        type: "number",
        min: "0",
        max: "3600",
        value: policy.watch ?? "",
        placeholder: "SVC_UPDATE_WATCH",
      })
      const save = action(
        "Save policy",
        () =>
          put(`/stacks/${enc(name)}/policy`, {
            auto_update: mode.value,
            schedule: schedule.value.trim() || null,
            watch: watch.value === "" ? null : Number(watch.value),
          }),
        { done: () => (toast("Policy saved"), void reload()) },
      )
      const last = policy.last_verdict
      return h(
        "div",
        null,
        h("h2", null, "Policy"),
        h(
          "div",
          { class: "form-row" },
          h("label", { for: "policy-mode" }, "Automatic updates"),
          mode,
          h("label", { for: "policy-schedule" }, "Schedule"),
          schedule,
          h("label", { for: "policy-watch" }, "Watch (s)"),
          watch,
          save,
        ),
        h(
          "p",
          { class: "muted" },
          `Last run: ${policy.last_run ? when(policy.last_run) : "never"}. Last verdict: `,
          last ? [badge(last.verdict), last.reason ? ` ${last.reason}` : ""] : "none",
        ),
        h("h2", null, "History"),
        table(
          data.history,
          [
            { title: "Finished", cell: (u) => when(u.finished_at) },
            { title: "Verdict", cell: (u) => badge(u.verdict) },
            { title: "Trigger", cell: (u) => `${u.action} (${u.trigger})` },
            {
              title: "Images",
              cell: (u) =>
                u.images
                  .flatMap((i) =>
                    i.to
                      ? [
                          `${i.service}: ${i.from.split("@").pop()!.slice(0, 19)} → ${i.to.split("@").pop()!.slice(0, 19)}`,
                        ]
                      : [],
                  )
                  .join(", ") || "—",
            },
            {
              title: "Reason",
              cell: (u) => [u.reason ?? "—", u.fix ? h("div", { class: "muted" }, `Fix by hand: ${u.fix}`) : null],
            },
            { title: "Time", cell: (u) => `${(u.duration_ms / 1000).toFixed(1)} s` },
          ],
          "No guarded updates yet.",
          "Update history (last 50)",
        ),
      )
    },
  )
}

/** The answer of an update check in one sentence: newer images, images that could not be checked. */
function updateText(r: UpdateCheck): string {
  const images = r.images
  const newer = images.filter((i) => i.update_available).map((i) => i.ref)
  const unknown = images
    .filter((i) => i.update_available === null)
    .map((i) => `${i.ref}${i.error ? ` (${i.error})` : ""}`)
  return [
    newer.length ? `Newer versions: ${newer.join(", ")}.` : "No newer versions found.",
    unknown.length ? `Could not check: ${unknown.join(", ")}.` : "",
  ]
    .join(" ")
    .trim()
}

function servicesView(s: Stack, refresh: () => void, signal: AbortSignal): HTMLElement {
  if (s.runsOn === "nodes") {
    const el = h("section", { class: "card", "aria-label": "Swarm services" })
    swarmServices(el, signal, s.name)
    return el
  }
  if (!s.services.length) return empty("This stack has no services running.")
  return h(
    "div",
    null,
    s.services.map((svc) =>
      h(
        "section",
        { class: "card" },
        h("h2", null, svc.name),
        svc.containers.length ? containerTable(svc.containers, refresh) : empty("No container for this service."),
      ),
    ),
  )
}

/**
 * The compose file and the stack's other files: a list beside the editor. compose.yaml deploys when
 * saved; another file is saved without deploying ("files pending") and applied with Apply, as the
 * environment is.
 */
function composeView(pane: HTMLElement, name: string, signal: AbortSignal, refreshHead: () => void): void {
  let selected = "compose.yaml"
  const reload = load(
    pane,
    async () =>
      [
        await get<ComposeFile>(`/stacks/${enc(name)}/compose`, { signal }),
        await get<FileEntry[]>(`/stacks/${enc(name)}/files`, { signal }),
        stack(await get<StackAnswer>(`/stacks/${enc(name)}`, { signal })),
      ] as const,
    ([data, files, s]) => {
      if (selected !== "compose.yaml" && !files.some((f) => f.path === selected)) selected = "compose.yaml"
      const editorPane = h("div", { class: "file-editor", style: "flex: 1 1 30rem; min-width: 0" })
      const problems = h("div")
      const changed = () => {
        refreshHead()
        void reload()
      }
      const pick = async (path: string) => {
        selected = path
        for (const b of nav.querySelectorAll("button")) b.setAttribute("aria-current", String(b.dataset.path === path))
        render(problems)
        if (path === "compose.yaml") return render(editorPane, composeEditor(data.content))
        render(editorPane, h("p", { class: "loading" }, "Loading…"))
        try {
          const f = await get(`/stacks/${enc(name)}/files/${encPath(path)}`, { signal })
          render(editorPane, fileEditor(path, f.content ?? ""))
        } catch (err) {
          render(editorPane, errorBox(err))
        }
      }
      const composeEditor = (text: string) => {
        const editor = codeEditor(text, "Compose file", "compose")
        return [
          h("h2", { class: "mono" }, "compose.yaml"),
          editor.el,
          h(
            "div",
            { class: "actions" },
            action(
              "Save and deploy",
              async () => {
                render(problems)
                try {
                  await post("/stacks", { name, content: editor.value() })
                  toast(`Deployed ${name}`)
                  refreshHead()
                } catch (err) {
                  editor.refused(errorText(err))
                  render(problems, errorBox(err))
                }
              },
              { class: "primary" },
            ),
          ),
        ]
      }
      const fileEditor = (path: string, text: string) => {
        const editor = codeEditor(text, `File ${path}`, { file: path })
        return [
          h("h2", { class: "mono" }, path),
          editor.el,
          h(
            "div",
            { class: "actions" },
            action(
              "Save",
              async () => {
                render(problems)
                try {
                  const r = await put(`/stacks/${enc(name)}/files/${encPath(path)}`, { content: editor.value() })
                  toast(r?.files_pending ? `Saved ${path}; apply to redeploy` : `Saved ${path}`)
                  changed()
                } catch (err) {
                  render(problems, errorBox(err))
                }
              },
              { class: "primary" },
            ),
            action("Delete", () => del(`/stacks/${enc(name)}/files/${encPath(path)}`), {
              class: "small danger",
              label: `Delete file ${path}`,
              confirm: `Delete ${path} from ${name}? Earlier versions keep it; apply to redeploy without it.`,
              done: () => (toast(`Deleted ${path}`), (selected = "compose.yaml"), changed()),
            }),
          ),
        ]
      }
      const newFile = () => {
        const input = h("input", {
          id: "new-file-path",
          class: "mono",
          placeholder: "nginx.conf or conf/site.conf",
          autocomplete: "off",
          pattern: FILE_PATH.source,
        })
        const add = action("Create", async () => {
          render(problems)
          const path = input.value.trim()
          if (!FILE_PATH.test(path))
            return render(
              problems,
              errorBox(
                new Error(
                  "A file path is relative: names of letters, digits, '.', '_' and '-' separated by '/', none starting with '.'.",
                ),
              ),
            )
          try {
            await put(`/stacks/${enc(name)}/files/${encPath(path)}`, { content: "" })
            selected = path
            toast(`Created ${path}`)
            changed()
          } catch (err) {
            render(problems, errorBox(err))
          }
        })
        render(
          editorPane,
          h("h2", null, "New file"),
          h("div", { class: "field" }, h("label", { for: "new-file-path" }, "Path in the stack's folder"), input),
          h("div", { class: "actions" }, add),
        )
        input.focus()
      }
      const item = (path: string, size?: number) =>
        h(
          "li",
          null,
          h(
            "button",
            { type: "button", class: "link mono", "data-path": path, onclick: () => void pick(path) },
            path,
            size !== undefined ? h("span", { class: "muted" }, ` ${size} B`) : null,
          ),
        )
      const nav = h(
        "nav",
        { class: "file-list", "aria-label": "Stack files", style: "flex: 0 1 14rem" },
        h(
          "ul",
          { style: "list-style: none; padding: 0; margin: 0" },
          item("compose.yaml"),
          files.map((f) => item(f.path, f.size)),
        ),
        h(
          "div",
          { class: "actions", "data-needs": "operator" },
          h("button", { type: "button", class: "small", onclick: newFile }, "New file"),
        ),
      )
      const apply = action("Apply", () => post(`/stacks/${enc(name)}/apply`), {
        done: () => (toast("Files applied; a new version was made"), changed()),
      })
      void pick(selected)
      return [
        h(
          "p",
          { class: "muted" },
          "The compose file deploys when saved. The stack's other files (an extends: or include:d file, a bound config) are saved without deploying: apply to use them. ",
          s.filesPending ? [filesPendingMark(), " ", apply] : null,
        ),
        h(
          "div",
          { class: "files-layout", style: "display: flex; flex-wrap: wrap; gap: 1rem; align-items: flex-start" },
          nav,
          editorPane,
        ),
        problems,
      ]
    },
  )
}

function envView(pane: HTMLElement, name: string, signal: AbortSignal, refreshHead: () => void): void {
  const rows = h("tbody")
  const problems = h("div")
  const mark = h("span", { role: "status" })
  const setPending = (pending: boolean) =>
    render(mark, pending ? pendingMark() : h("span", { class: "muted" }, "applied"))

  const row = (v: EnvVar) => {
    const key = h("input", { value: v.key, "aria-label": "Name", class: "mono env-key", autocomplete: "off" })
    const value = h("input", {
      value: v.value ?? "",
      type: v.secret ? "password" : "text",
      "aria-label": `Value of ${v.key || "new variable"}`,
      class: "mono env-value",
      autocomplete: "off",
      placeholder: v.secret && v.value === null && v.key ? "hidden; leave empty to keep" : "",
    })
    const secret = h("input", {
      type: "checkbox",
      checked: v.secret,
      "aria-label": `Secret ${v.key}`,
      class: "env-secret",
    })
    secret.addEventListener("change", () => (value.type = secret.checked ? "password" : "text"))
    const tr = h(
      "tr",
      null,
      h("td", { "data-label": "Name" }, key),
      h("td", { "data-label": "Value" }, value),
      h("td", { "data-label": "Secret" }, secret),
      h(
        "td",
        null,
        h(
          "button",
          { type: "button", class: "small", onclick: () => tr.remove(), "aria-label": `Remove ${v.key}` },
          "Remove",
        ),
      ),
    )
    // A stored secret is kept (value null) unless a new value was typed.
    ;(tr as any).read = (): EnvVar => ({
      key: key.value.trim(),
      value: v.secret && v.value === null && value.value === "" && secret.checked ? null : value.value,
      secret: secret.checked,
    })
    return tr
  }

  const save = action(
    "Save",
    async () => {
      render(problems)
      const env = [...rows.children].map((tr) => (tr as any).read() as EnvVar).filter((v) => v.key)
      try {
        const r = await put(`/stacks/${enc(name)}/env`, env)
        setPending(r?.env_pending ?? true)
        toast("Environment saved; apply it to redeploy")
        refreshHead()
      } catch (err) {
        render(problems, errorBox(err))
      }
    },
    { class: "primary" },
  )
  const apply = action("Apply", () => post(`/stacks/${enc(name)}/apply`), {
    done: () => {
      setPending(false)
      toast("Environment applied; a new version was made")
      refreshHead()
      reload()
    },
  })

  const reload = load(
    pane,
    async () =>
      [
        await get<EnvVar[]>(`/stacks/${enc(name)}/env`, { signal }),
        await get<StackAnswer>(`/stacks/${enc(name)}`, { signal }),
      ] as const,
    ([env, s]) => {
      render(rows, env.map(row))
      setPending(stack(s).envPending)
      return [
        h(
          "p",
          { class: "muted" },
          "Secret values are never shown. Leave a secret empty to keep its stored value. Saving does not redeploy: apply to use the new values. ",
          mark,
        ),
        h(
          "div",
          { class: "table-wrap" },
          h(
            "table",
            { class: "env" },
            h(
              "thead",
              null,
              h(
                "tr",
                null,
                h("th", null, "Name"),
                h("th", null, "Value"),
                h("th", null, "Secret"),
                h("th", null, h("span", { class: "sr-only" }, "Remove")),
              ),
            ),
            rows,
          ),
        ),
        h(
          "div",
          { class: "actions" },
          h(
            "button",
            {
              type: "button",
              class: "small",
              onclick: () =>
                rows
                  .appendChild(row({ key: "", value: "", secret: false }))
                  .querySelector("input")!
                  .focus(),
            },
            "Add variable",
          ),
          save,
          apply,
        ),
        problems,
      ]
    },
  )
}

/** A version's compose file beside the current one, the changes marked. */
async function compareVersions(name: string, n: number, signal: AbortSignal): Promise<void> {
  const box = h("div", { class: "diff-box" }, h("p", { class: "loading" }, "Loading…"))
  const closed = modal(`Version ${n} and the current compose file`, box, (close) => [
    h("button", { type: "button", onclick: () => close("") }, "Close"),
  ])
  try {
    const [old, now] = await Promise.all([
      get<{ content: string }>(`/stacks/${enc(name)}/versions/${enc(String(n))}/compose`, { signal }),
      get<{ content: string }>(`/stacks/${enc(name)}/compose`, { signal }),
    ])
    render(box, await diffView(old.content, now.content, [`Version ${n}`, "Current"], "compose"))
  } catch (err) {
    render(box, errorBox(err))
  }
  await closed
}

function versionsView(pane: HTMLElement, name: string, signal: AbortSignal, refreshHead: () => void): void {
  const reload = load(
    pane,
    async () => await get<StackVersion[]>(`/stacks/${enc(name)}/versions`, { signal }),
    (versions) => {
      const isCurrent = (v: StackVersion) => v.current
      const done = () => {
        refreshHead()
        void reload()
      }
      return table(
        [...versions].reverse(),
        [
          {
            title: "Version",
            cell: (v) => [
              String(v.version),
              " ",
              isCurrent(v) && h("span", { class: "badge state-running" }, "current"),
            ],
          },
          { title: "Time", cell: (v) => when(v.time) },
          { title: "Change", cell: changeText },
          {
            title: "Actions",
            cell: (v) => {
              const n = v.version
              if (isCurrent(v)) return "—"
              return h(
                "div",
                { class: "actions" },
                h(
                  "button",
                  {
                    type: "button",
                    class: "small",
                    "aria-label": `Compare version ${n} with the current one`,
                    onclick: () => void compareVersions(name, n, signal),
                  },
                  "Compare",
                ),
                action("Roll back", () => post(`/stacks/${enc(name)}/rollback/${enc(String(n))}`), {
                  confirm: `Roll ${name} back to version ${n}? It is redeployed with that version's compose file, environment and files.`,
                  done: () => (toast(`Rolled back to version ${n}`), done()),
                  label: `Roll back to version ${n}`,
                }),
                action("Delete", () => del(`/stacks/${enc(name)}/versions/${enc(String(n))}`), {
                  class: "small danger",
                  confirm: `Delete version ${n} of ${name}?`,
                  done,
                  label: `Delete version ${n}`,
                }),
              )
            },
          },
        ],
        "No versions yet.",
        "Versions",
      )
    },
  )
}

function changeText(v: StackVersion): string {
  const { changes: c } = v
  const parts = [
    v.action,
    c.from !== null ? `from ${c.from}` : "first version",
    c.compose && "compose file changed",
    ...(["added", "changed", "removed"] as const).map(
      (k) => c.files?.[k].length && `${k === "changed" ? "edited" : k} file ${c.files[k].join(", ")}`,
    ),
    c.env.added.length && `added ${c.env.added.join(", ")}`,
    c.env.changed.length && `changed ${c.env.changed.join(", ")}`,
    c.env.removed.length && `removed ${c.env.removed.join(", ")}`,
  ]
  return parts.filter(Boolean).join(" · ")
}

/** The copy dialog: a dry run first shows the plan (blockers, warnings, volumes, binds, images); the copy itself is allowed once a dry run has no blockers. */
async function copyDialog(name: string): Promise<void> {
  const nodes: { name: string }[] = await get("/nodes", { local: true }).catch(() => [])
  const from = currentNode()
  const to = h(
    "select",
    { id: "copy-to" },
    h("option", { value: "" }, "This server (control plane)"),
    (Array.isArray(nodes) ? nodes : []).map((n) => h("option", { value: n.name }, n.name)),
  )
  const as = h("input", { id: "copy-as", placeholder: name, pattern: NAME.source, autocomplete: "off" })
  const box = (id: string, text: string) => {
    const input = h("input", { type: "checkbox", id })
    return [input, h("label", { class: "check" }, input, " ", text)] as const
  }
  const [volumes, volumesLabel] = box("copy-volumes", "Copy named volume data")
  volumes.checked = true
  const [start, startLabel] = box("copy-start", "Start the copy")
  const [binds, bindsLabel] = box("copy-binds", "Accept that host-path mounts stay behind")
  const [anon, anonLabel] = box("copy-anon", "Accept losing anonymous volumes")
  const [clash, clashLabel] = box("copy-clash", "Write it even if a published port clashes")
  const plan = h("div", { class: "plan", "aria-live": "polite" })
  const request = () => ({
    ...(from ? { from } : {}),
    ...(to.value ? { to: to.value } : {}),
    ...(as.value ? { as: as.value } : {}),
    include_volumes: volumes.checked,
    start: start.checked,
    allow_binds: binds.checked,
    allow_anonymous_volumes: anon.checked,
    allow_port_clash: clash.checked,
  })
  let copyButton!: HTMLButtonElement
  const invalidate = () => (copyButton.disabled = true)
  for (const el of [to, as, volumes, start, binds, anon, clash]) el.addEventListener("change", invalidate)
  as.addEventListener("input", invalidate)

  const dryRun = action(
    "Dry run",
    async () => {
      render(plan, h("p", { class: "loading" }, "Planning…"))
      try {
        const p = await post<CopyPlan>(`/stacks/${enc(name)}/copy`, { ...request(), dry_run: true }, { local: true })
        render(plan, planView(p))
        plan.scrollIntoView({ block: "nearest" })
        copyButton.disabled = p.blockers.length > 0
      } catch (err) {
        render(plan, errorBox(err))
      }
    },
    { class: "primary" },
  )
  copyButton = action(
    "Copy",
    async () => {
      render(plan, h("p", { class: "loading" }, "Copying…"))
      try {
        const p = await post<CopyPlan>(`/stacks/${enc(name)}/copy`, { ...request(), dry_run: false }, { local: true })
        render(plan, h("p", { class: "ok", role: "status" }, "Copied."), planView(p))
        toast(`Copied ${name}`)
      } catch (err) {
        render(plan, errorBox(err))
      }
      copyButton.disabled = true
    },
    { class: "danger" },
  )
  copyButton.disabled = true
  await modal(
    `Copy stack ${name}${from ? ` from ${from}` : ""}`,
    h(
      "div",
      { class: "copy-form" },
      h("div", { class: "field" }, h("label", { for: "copy-to" }, "Destination"), to),
      h("div", { class: "field" }, h("label", { for: "copy-as" }, "New name"), as),
      volumesLabel,
      startLabel,
      bindsLabel,
      anonLabel,
      clashLabel,
      h(
        "p",
        { class: "muted" },
        "Run a dry run first: it shows what would be copied and what blocks the copy. Nothing changes until you copy.",
      ),
      plan,
    ),
    (close) => [dryRun, copyButton, h("button", { type: "button", onclick: () => close("close") }, "Close")],
  )
}

function planView(p: CopyPlan): HTMLElement {
  const list = <T>(title: string, items: T[], cls: string, fmt: (x: T) => string) =>
    items.length
      ? h(
          "section",
          { class: `plan-part ${cls}` },
          h("h3", null, `${title} (${items.length})`),
          h(
            "ul",
            null,
            items.map((x) => h("li", null, fmt(x))),
          ),
        )
      : null
  const { blockers } = p
  const volumeText = (v: CopyPlan["volumes"][number]) =>
    `${v.source} → ${v.target}${v.external ? " (external, left alone)" : v.transfer ? ", data copied" : ", created empty"}${v.exists_on_destination ? ", already on the destination" : ""}`
  return h(
    "div",
    null,
    blockers.length
      ? h(
          "p",
          { class: "error", role: "alert" },
          `Blocked: ${blockers.length} problem${blockers.length === 1 ? "" : "s"} must be solved first.`,
        )
      : h("p", { class: "ok", role: "status" }, "No blockers: the copy can go ahead."),
    list("Blockers", blockers, "blockers", (b) => b.message),
    list("Warnings", p.warnings, "warnings", (w) => w),
    list("Volumes", p.volumes, "", volumeText),
    list("Host paths (stay behind)", p.binds, "", (b) => `${b.source} (${b.service}:${b.target})`),
    list(
      "Images",
      p.images,
      "",
      (i) =>
        `${i.ref}${i.on_destination ? " (on the destination)" : i.send ? " (sent from the source)" : " (pulled there)"}`,
    ),
  )
}
