// Backups: each restic repository with its schedule, keep rules and last check, and per stack its
// newest backup and that backup's age, in red when it is older than the schedule allows. A stack is
// backed up from here with restic's progress shown as it reads; its backups are listed, and one is
// restored (here or on a node of the registry, with its bind mounts if asked) after a dry run has
// shown the plan (what blocks it, which volumes come back).
import type * as v from "valibot"
import type {
  backupMessageSchema,
  backupSchema,
  repoView,
  restoreResultSchema,
  stackStatusSchema,
} from "#lib/backups/schemas.ts"
import { HttpError } from "#lib/http/http-error.ts"
import { sseMessages } from "#lib/http/sse-read.ts"
import { apiUrl, currentNode, enc, get, post } from "../api.ts"
import { action, bytes, empty, h, load, modal, render, table, toast, when } from "../dom.ts"

type Repo = v.InferOutput<typeof repoView>
type Status = v.InferOutput<typeof stackStatusSchema>
type Backup = v.InferOutput<typeof backupSchema>
type Message = v.InferOutput<typeof backupMessageSchema>
type Restore = v.InferOutput<typeof restoreResultSchema>

/** "3 d 4 h", "2 h 10 min", "45 s": the two largest units. */
export function age(seconds: number): string {
  const units: [string, number][] = [
    ["d", 86400],
    ["h", 3600],
    ["min", 60],
    ["s", 1],
  ]
  const parts: string[] = []
  let rest = Math.max(0, Math.round(seconds))
  for (const [unit, size] of units) {
    if (rest >= size || (unit === "s" && !parts.length)) parts.push(`${Math.floor(rest / size)} ${unit}`)
    rest %= size
    if (parts.length === 2) break
  }
  return parts.join(" ")
}

const keepText = (k: Repo["keep"]) =>
  k
    ? Object.entries(k)
        .map(([rule, n]) => `${n} ${rule}`)
        .join(", ")
    : "everything"

/** Runs the backup with its event stream, telling `onProgress` how far restic read; answers the result. */
async function backUp(
  repo: string,
  stack: string,
  onProgress: (text: string) => void,
): Promise<Extract<Message, { type: "done" }>["result"]> {
  const res = await fetch(apiUrl(`/backups/${enc(repo)}/${enc(stack)}/run?stream=true`), {
    method: "POST",
    headers: { accept: "text/event-stream" },
  })
  if (!res.ok) {
    const body = await res.json().catch(() => ({}))
    throw new HttpError(res.status, body.error?.code ?? "error", body.error?.message ?? `HTTP ${res.status}`)
  }
  for await (const { data } of sseMessages(res.body!)) {
    const m = data as Message
    if (m.type === "progress")
      onProgress(`${m.piece}: ${bytes(m.bytes_done)}${m.total_bytes ? ` of ${bytes(m.total_bytes)}` : ""}`)
    else if (m.type === "done") return m.result
    else throw new HttpError(m.error.status, m.error.code, m.error.message)
  }
  throw new Error("the backup's stream ended without its result")
}

function planView(r: Restore): HTMLElement {
  const list = (title: string, items: string[], cls = "") =>
    items.length
      ? h(
          "section",
          { class: `plan-part ${cls}` },
          h("h3", null, `${title} (${items.length})`),
          h(
            "ul",
            null,
            items.map((x) => h("li", null, x)),
          ),
        )
      : null
  const { blockers } = r.plan
  return h(
    "div",
    null,
    blockers.length
      ? h(
          "p",
          { class: "error", role: "alert" },
          `Blocked: ${blockers.length} problem${blockers.length === 1 ? "" : "s"} must be solved first.`,
        )
      : h("p", { class: "ok", role: "status" }, `No blockers: the backup can be restored as ${r.plan.target}.`),
    list(
      "Blockers",
      blockers.map((b) => b.message),
      "blockers",
    ),
    list("Warnings", r.plan.warnings),
    list(
      "Volumes",
      r.plan.volumes.map(
        (vol) =>
          `${vol.source} → ${vol.target}${vol.transfer ? ", data restored" : ", created empty"}${vol.exists_on_destination ? ", exists here" : ""}`,
      ),
    ),
  )
}

/** The restore dialog: a dry run first, then the restore with the same choices. */
function restoreDialog(repo: string, stack: string, backup: Backup, done: () => void): void {
  const as = h("input", { id: "restore-as", value: stack, required: true })
  const force = h("input", { id: "restore-force", type: "checkbox" })
  const hasBinds = backup.pieces.some((p) => p.path.startsWith("binds/"))
  const binds = h("input", { id: "restore-binds", type: "checkbox" })
  // Where: this server, or (on a control plane, no node selected) a node of its registry.
  const to = h("select", { id: "restore-to" }, h("option", { value: "" }, "This server"))
  const toField = h("div", { class: "field", hidden: true }, h("label", { for: "restore-to" }, "Restore on"), to)
  if (!currentNode())
    void get<{ name: string }[]>("/nodes", { local: true }).then(
      (nodes) => {
        for (const n of nodes) to.append(h("option", { value: n.name }, n.name))
        toField.hidden = nodes.length === 0
      },
      () => {},
    )
  const plan = h("div", { "aria-live": "polite" })
  const body = () => ({
    run: backup.run,
    as: as.value.trim() || stack,
    force: force.checked,
    ...(to.value ? { to: to.value } : {}),
    ...(binds.checked ? { binds: true } : {}),
  })
  const restoreButton = action("Restore", async () => {
    const result = await post<Restore>(`/backups/${enc(repo)}/${enc(stack)}/restore`, body())
    toast(`Restored ${stack}'s backup ${backup.run} as ${result.plan.target}`)
    restoreButton.closest("dialog")?.close()
    done()
  })
  restoreButton.disabled = true
  const dryRun = action("Dry run", async () => {
    const result = await post<Restore>(`/backups/${enc(repo)}/${enc(stack)}/restore`, { ...body(), dry_run: true })
    render(plan, planView(result))
    restoreButton.disabled = result.plan.blockers.length > 0
  })
  // A changed choice needs its own dry run.
  for (const input of [as, force, binds, to])
    input.addEventListener("input", () => ((restoreButton.disabled = true), render(plan)))
  void modal(
    `Restore ${stack} from ${when(backup.time)}`,
    h(
      "div",
      { class: "copy-form" },
      h("div", { class: "field" }, h("label", { for: "restore-as" }, "Restore as"), as),
      toField,
      hasBinds && h("label", { class: "check" }, binds, " Restore its bind mounts to their host paths (this server)"),
      h("label", { class: "check" }, force, " Unpack into volumes (and bind paths) that hold data already"),
      h(
        "p",
        { class: "muted" },
        "Run a dry run first: it shows what the restore brings back and what blocks it. Nothing changes until you restore.",
      ),
      plan,
    ),
    (close) => [dryRun, restoreButton, h("button", { type: "button", onclick: () => close("close") }, "Close")],
  )
}

function snapshotsView(repo: string, stack: string, el: HTMLElement, reload: () => void): void {
  load(
    el,
    () => get<Backup[]>(`/backups/${enc(repo)}/${enc(stack)}`),
    (list) =>
      table(
        list,
        [
          { title: "Time", cell: (b) => when(b.time) },
          { title: "Run", cell: (b) => h("span", { class: "mono" }, b.run) },
          { title: "Version", cell: (b) => (b.version === null ? "—" : String(b.version)) },
          { title: "Pieces", cell: (b) => b.pieces.map((p) => p.path).join(", ") },
          {
            title: "",
            cell: (b) =>
              action("Restore…", async () => restoreDialog(repo, stack, b, reload), {
                label: `Restore ${stack} from ${b.run}`,
              }),
          },
        ],
        `No backup of ${stack} in ${repo} yet.`,
        `Backups of ${stack} in ${repo}`,
      ),
  )
}

function stacksView(repo: Repo, el: HTMLElement): void {
  const reload = load(
    el,
    () => get<Status[]>(`/backups/repos/${enc(repo.name)}/status`),
    (rows) => {
      const details = h("div")
      return [
        table(
          rows,
          [
            { title: "Stack", cell: (s) => h("a", { href: `#/stacks/${enc(s.stack)}` }, s.stack) },
            {
              title: "Last backup",
              cell: (s) => (s.last_backup ? when(s.last_backup) : h("span", { class: "muted" }, "never")),
            },
            {
              title: "Age",
              cell: (s) =>
                s.age_seconds === null
                  ? "—"
                  : s.overdue
                    ? h(
                        "span",
                        {
                          class: "error-text",
                          title: `older than the schedule allows: the next backup was due ${when(s.due ?? undefined)}`,
                        },
                        `${age(s.age_seconds)} (overdue)`,
                      )
                    : age(s.age_seconds),
            },
            { title: "Size", cell: (s) => (s.last_size === null ? "—" : bytes(s.last_size)) },
            {
              title: "",
              cell: (s) => {
                const progress = h("span", { class: "muted", "aria-live": "polite" })
                return [
                  action(
                    "Back up now",
                    async () => {
                      const result = await backUp(repo.name, s.stack, (text) => (progress.textContent = text))
                      progress.textContent = ""
                      toast(`Backed up ${s.stack}: ${bytes(result.bytes)} read, ${bytes(result.added)} new`)
                      void reload()
                    },
                    { label: `Back up ${s.stack} now` },
                  ),
                  " ",
                  h(
                    "button",
                    {
                      type: "button",
                      class: "small",
                      "aria-label": `Backups of ${s.stack}`,
                      onclick: () => snapshotsView(repo.name, s.stack, details, () => void reload()),
                    },
                    "Backups",
                  ),
                  " ",
                  progress,
                ]
              },
            },
          ],
          "No stack backed up here, and no schedule.",
          `Stacks in ${repo.name}`,
        ),
        details,
      ]
    },
  )
}

function repoSection(repo: Repo): HTMLElement {
  const id = `backup-repo-${repo.name}`
  const stacks = h("div")
  stacksView(repo, stacks)
  const check = h(
    "span",
    null,
    repo.last_check
      ? [
          repo.last_check.ok ? "ok" : h("span", { class: "error-text" }, "failed"),
          ` ${when(repo.last_check.time)}: ${repo.last_check.message}`,
        ]
      : "never",
  )
  return h(
    "section",
    { class: "card", "aria-labelledby": id },
    h("h2", { id }, repo.name),
    h(
      "dl",
      { class: "facts" },
      h("dt", null, "Repository"),
      h("dd", { class: "mono" }, repo.repository),
      h("dt", null, "Schedule"),
      h("dd", null, repo.schedule ?? "none (backups run when asked)"),
      h("dt", null, "Keeps"),
      h("dd", null, keepText(repo.keep)),
      h("dt", null, "Check"),
      h("dd", null, repo.check ?? "when asked", " · last: ", check),
    ),
    h(
      "div",
      { class: "actions" },
      action(
        "Check now",
        async () => {
          const r = await post<{ ok: boolean; message: string }>(`/backups/${enc(repo.name)}/check`)
          toast(`restic check of ${repo.name}: ${r.message}`, r.ok ? "info" : "error")
          render(check, r.ok ? "ok" : h("span", { class: "error-text" }, "failed"), ` just now: ${r.message}`)
        },
        { label: `Check ${repo.name} now` },
      ),
    ),
    stacks,
  )
}

export function backupsPage(main: HTMLElement, _: Record<string, string>, signal: AbortSignal): void {
  const list = h("div")
  render(main, h("h1", null, "Backups"), list)
  load(
    list,
    () => get<Repo[]>("/backups/repos", { signal }),
    (repos) =>
      repos.length
        ? repos.map(repoSection)
        : empty(
            "No backup repository yet: add one through the API (POST /api/backups/repos), as the documentation shows.",
          ),
  )
}
