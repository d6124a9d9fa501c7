// Alerts: the channels (address masked, delivery status, a test), the rules (what each watches, its
// scope, mute), the conditions raised now, and the history of what was sent, a page at a time.
import type * as v from "valibot"
import type { activeView, channelView, historyView, kindsView, ruleView } from "#lib/alerts/schemas.ts"
import { del, enc, get, post } from "../api.ts"
import { action, badge, errorBox, h, load, render, table, toast, when } from "../dom.ts"

type Channel = v.InferOutput<typeof channelView>
type Rule = v.InferOutput<typeof ruleView>
type Kinds = v.InferOutput<typeof kindsView>
type Active = v.InferOutput<typeof activeView>
type History = v.InferOutput<typeof historyView>

const local = { local: true }
const list = (text: string) =>
  text
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
const field = (id: string, label: string, input: HTMLElement, hint?: string) =>
  h("div", { class: "field" }, h("label", { for: id }, label), input, hint && h("small", { class: "muted" }, hint))

/** The form that adds a channel: its service URL, or a kind's fields. */
function channelForm(kinds: Kinds, added: () => void): HTMLElement {
  const name = h("input", { id: "channel-name", required: true, maxLength: 64, placeholder: "ops mail" })
  const how = h(
    "select",
    { id: "channel-how" },
    h("option", { value: "url" }, "a service URL"),
    kinds.map((k) => h("option", { value: k.kind }, `a form: ${k.kind}`)),
  )
  const url = h("input", {
    id: "channel-url",
    class: "mono",
    placeholder: "smtp://user:pass@mail.example.com:587/?from=a@example.com&to=b@example.com",
    autocomplete: "off",
  })
  const fields = h("div")
  const inputs = new Map<string, HTMLInputElement>()
  const shown = h("div", { "aria-live": "polite" })
  const draw = () => {
    inputs.clear()
    const kind = kinds.find((k) => k.kind === how.value)
    if (!kind)
      return render(fields, field("channel-url", "Address", url, "Its credentials are kept and never shown again."))
    render(
      fields,
      kind.fields.map((f) => {
        const input = h("input", {
          id: `channel-f-${f.name}`,
          type: f.secret ? "password" : "text",
          required: Boolean(f.required),
          placeholder: f.hint ?? "",
          autocomplete: "off",
        })
        inputs.set(f.name, input)
        return field(input.id, f.label, input)
      }),
    )
  }
  how.addEventListener("change", draw)
  draw()
  const form = h(
    "form",
    { class: "card", "aria-labelledby": "channel-new-h", "data-needs": "admin" },
    h("h2", { id: "channel-new-h" }, "New channel"),
    field("channel-name", "Name", name),
    field("channel-how", "Given as", how),
    fields,
    h("div", { class: "actions" }, h("button", { type: "submit", class: "primary" }, "Add channel")),
    shown,
  )
  form.addEventListener("submit", async (e) => {
    e.preventDefault()
    render(shown)
    try {
      const body =
        how.value === "url"
          ? { name: name.value, url: url.value }
          : { name: name.value, kind: how.value, fields: Object.fromEntries([...inputs].map(([k, i]) => [k, i.value])) }
      const c = await post<Channel>("/alerts/channels", body, local)
      toast(`Added ${c.name}`)
      name.value = ""
      url.value = ""
      for (const i of inputs.values()) i.value = ""
      added()
    } catch (err) {
      render(shown, errorBox(err))
    }
  })
  return form
}

const KINDS_OF_RULE: [string, string][] = [
  ["container_died", "a container exits with a non-zero code"],
  ["container_oom", "a container is killed for memory"],
  ["container_unhealthy", "a container's healthcheck fails"],
  ["restart_loop", "a container restarts in a loop"],
  ["stack_degraded", "a stack is degraded or stopped"],
  ["event", "updates, scans, refused mounts, failed backups and copies"],
  ["backup_overdue", "a scheduled backup is overdue"],
  ["node_offline", "a node is offline"],
  ["swarm_replicas", "a swarm service lacks replicas"],
  ["cpu", "CPU above a threshold"],
  ["memory", "memory above a threshold"],
  ["disk", "a disk fuller than a threshold"],
]

/** The form that adds a rule: what it watches, its parameters, scope and channels. */
function ruleForm(channels: Channel[], added: () => void): HTMLElement {
  const name = h("input", { id: "rule-name", required: true, maxLength: 64, placeholder: "crashes" })
  const kind = h(
    "select",
    { id: "rule-kind" },
    KINDS_OF_RULE.map(([k, what]) => h("option", { value: k }, `${k}: ${what}`)),
  )
  const target = h(
    "select",
    { id: "rule-target" },
    ["", "container", "host", "data", "engine"].map((t) => h("option", { value: t }, t || "(default)")),
  )
  const above = h("input", { id: "rule-above", type: "number", min: 0, placeholder: "90" })
  const minutes = h("input", { id: "rule-minutes", type: "number", min: 0, step: "any", placeholder: "5" })
  const restarts = h("input", { id: "rule-restarts", type: "number", min: 2, placeholder: "3" })
  const stacks = h("input", { id: "rule-stacks", placeholder: "all stacks" })
  const picks = channels.map((c) => ({ c, box: h("input", { type: "checkbox", value: c.id }) }))
  const shown = h("div", { "aria-live": "polite" })
  const form = h(
    "form",
    { class: "card", "aria-labelledby": "rule-new-h", "data-needs": "admin" },
    h("h2", { id: "rule-new-h" }, "New rule"),
    field("rule-name", "Name", name),
    field("rule-kind", "Fires when", kind),
    field("rule-target", "Of (cpu, memory: container or host; disk: data or engine)", target),
    field("rule-above", "Above (%)", above),
    field("rule-minutes", "For (minutes)", minutes),
    field("rule-restarts", "Restarts (restart loop)", restarts),
    field("rule-stacks", "Stacks (comma-separated)", stacks),
    h(
      "fieldset",
      null,
      h("legend", null, "Channels"),
      picks.length
        ? picks.map(({ c, box }) => h("label", { class: "check" }, box, ` ${c.name}`))
        : "Add a channel first.",
    ),
    h("div", { class: "actions" }, h("button", { type: "submit", class: "primary" }, "Add rule")),
    shown,
  )
  form.addEventListener("submit", async (e) => {
    e.preventDefault()
    render(shown)
    const num = (i: HTMLInputElement) => (i.value === "" ? undefined : Number(i.value))
    try {
      const r = await post<Rule>(
        "/alerts/rules",
        {
          name: name.value,
          kind: kind.value,
          channels: picks.filter((p) => p.box.checked).map((p) => p.c.id),
          ...(target.value && { target: target.value }),
          ...(num(above) !== undefined && { above: num(above) }),
          ...(num(minutes) !== undefined && { minutes: num(minutes) }),
          ...(num(restarts) !== undefined && { restarts: num(restarts) }),
          ...(stacks.value.trim() && { scope: { stacks: list(stacks.value) } }),
        },
        local,
      )
      toast(`Added the rule ${r.name}`)
      name.value = ""
      added()
    } catch (err) {
      render(shown, errorBox(err))
    }
  })
  return form
}

function historySection(signal: AbortSignal): { el: HTMLElement; reload: () => void } {
  const rows = h("div")
  const more = h("div", { class: "actions" })
  let entries: History["entries"] = []
  const show = async (cursor: string | null) => {
    try {
      const page = await get<History>(`/alerts/history?limit=50${cursor ? `&cursor=${enc(cursor)}` : ""}`, {
        ...local,
        signal,
      })
      entries = cursor ? [...entries, ...page.entries] : page.entries
      render(
        rows,
        table(
          entries,
          [
            { title: "When", cell: (e) => h("span", { class: "nowrap" }, when(e.time)) },
            {
              title: "Alert",
              cell: (e) => [h("strong", null, e.title), e.stack && h("small", { class: "muted" }, ` ${e.stack}`)],
            },
            { title: "Rule", cell: (e) => e.rule_name },
            { title: "Channel", cell: (e) => e.channel_name },
            { title: "State", cell: (e) => badge(e.state) },
            {
              title: "Result",
              cell: (e) => [
                badge(e.result),
                h(
                  "small",
                  { class: "muted" },
                  ` ${e.attempts} ${e.attempts === 1 ? "try" : "tries"}${e.grouped > 1 ? `, grouped with ${e.grouped - 1}` : ""}`,
                ),
                e.error && h("div", { class: "muted" }, e.error),
              ],
            },
          ],
          "Nothing sent yet.",
          "Alert history",
        ),
      )
      render(more, page.next && h("button", { type: "button", onclick: () => void show(page.next) }, "Older entries"))
    } catch (err) {
      if ((err as Error)?.name !== "AbortError")
        render(
          rows,
          errorBox(err, () => void show(cursor)),
        )
    }
  }
  void show(null)
  return {
    el: h(
      "section",
      { class: "card", "aria-labelledby": "history-h" },
      h("h2", { id: "history-h" }, "History"),
      rows,
      more,
    ),
    reload: () => void show(null),
  }
}

export function alertsPage(main: HTMLElement, _: Record<string, string>, signal: AbortSignal): void {
  const channelsEl = h("section", { class: "card", "aria-labelledby": "channels-h" })
  const rulesEl = h("section", { class: "card", "aria-labelledby": "rules-h" })
  const activeEl = h("section", { class: "card", "aria-labelledby": "active-h" })
  const forms = h("div", { class: "cards two" })
  const history = historySection(signal)
  let kinds: Kinds = []
  render(
    main,
    h("h1", null, "Alerts"),
    h(
      "p",
      { class: "muted" },
      "Channels say where messages go, rules what to watch. A condition is sent once while it lasts, and again when it ends.",
    ),
    activeEl,
    channelsEl,
    rulesEl,
    forms,
    history.el,
  )
  const reloadAll = () => void Promise.all([reloadChannels(), reloadRules(), reloadActive()]).then(history.reload)
  const drawForms = (channels: Channel[]) => render(forms, channelForm(kinds, reloadAll), ruleForm(channels, reloadAll))

  const reloadChannels = load(
    channelsEl,
    async () => {
      if (!kinds.length) kinds = await get<Kinds>("/alerts/kinds", { ...local, signal })
      return get<Channel[]>("/alerts/channels", { ...local, signal })
    },
    (channels) => {
      drawForms(channels)
      return [
        h("h2", { id: "channels-h" }, "Channels"),
        table(
          channels,
          [
            { title: "Name", cell: (c) => h("strong", null, c.name) },
            { title: "Kind", cell: (c) => c.kind },
            { title: "Address", cell: (c) => h("span", { class: "mono break" }, c.url) },
            {
              title: "Status",
              cell: (c) => [
                badge(c.status.state),
                c.status.pending > 0 && h("small", { class: "muted" }, ` ${c.status.pending} waiting`),
                c.status.last_error &&
                  c.status.state === "failing" &&
                  h("div", { class: "muted" }, c.status.last_error),
              ],
            },
            {
              title: "Actions",
              cell: (c) => [
                action(
                  "Send a test",
                  async () => {
                    const r = await post<{ ok: boolean; error: string | null }>(
                      `/alerts/channels/${enc(c.id)}/test`,
                      undefined,
                      local,
                    )
                    toast(
                      r.ok ? `The test reached ${c.name}` : `The test to ${c.name} failed: ${r.error}`,
                      r.ok ? "info" : "error",
                    )
                  },
                  { needs: "admin", label: `Send a test to ${c.name}`, done: reloadAll },
                ),
                " ",
                action("Remove", () => del(`/alerts/channels/${enc(c.id)}`, local), {
                  class: "small danger",
                  needs: "admin",
                  label: `Remove ${c.name}`,
                  confirm: `Remove the channel ${c.name}? Alerts waiting for it are dropped.`,
                  done: reloadAll,
                }),
              ],
            },
          ],
          "No channels yet: add one below.",
          "Alert channels",
        ),
      ]
    },
  )
  const reloadRules = load(
    rulesEl,
    () =>
      Promise.all([
        get<Rule[]>("/alerts/rules", { ...local, signal }),
        get<Channel[]>("/alerts/channels", { ...local, signal }),
      ]),
    ([rules, channels]) => [
      h("h2", { id: "rules-h" }, "Rules"),
      table(
        rules,
        [
          { title: "Name", cell: (r) => h("strong", null, r.name) },
          { title: "Fires when", cell: (r) => r.description },
          {
            title: "Scope",
            cell: (r) =>
              [
                r.scope.stacks?.length && `stacks ${r.scope.stacks.join(", ")}`,
                r.scope.labels?.length && `labels ${r.scope.labels.join(", ")}`,
                r.scope.nodes?.length && `nodes ${r.scope.nodes.join(", ")}`,
              ]
                .filter(Boolean)
                .join("; ") || "all",
          },
          {
            title: "Channels",
            cell: (r) => r.channels.map((id) => channels.find((c) => c.id === id)?.name ?? id).join(", ") || "—",
          },
          {
            title: "State",
            cell: (r) => [
              r.muted ? badge("muted") : badge(r.active ? "firing" : "ok"),
              r.muted && r.muted_until && h("small", { class: "muted" }, ` until ${when(r.muted_until)}`),
              r.active > 0 && h("small", { class: "muted" }, ` ${r.active} raised`),
            ],
          },
          {
            title: "Actions",
            cell: (r) => [
              r.muted
                ? action("Unmute", () => post(`/alerts/rules/${enc(r.id)}/mute`, { minutes: 0 }, local), {
                    label: `Unmute ${r.name}`,
                    done: reloadAll,
                  })
                : action("Mute 1 h", () => post(`/alerts/rules/${enc(r.id)}/mute`, { minutes: 60 }, local), {
                    label: `Mute ${r.name} for an hour`,
                    done: reloadAll,
                  }),
              " ",
              action("Remove", () => del(`/alerts/rules/${enc(r.id)}`, local), {
                class: "small danger",
                needs: "admin",
                label: `Remove ${r.name}`,
                confirm: `Remove the rule ${r.name}?`,
                done: reloadAll,
              }),
            ],
          },
        ],
        "No rules yet: add one below.",
        "Alert rules",
      ),
    ],
  )
  const reloadActive = load(
    activeEl,
    () => get<Active>("/alerts/active", { ...local, signal }),
    (active) => [
      h("h2", { id: "active-h" }, "Raised now"),
      table(
        active,
        [
          { title: "Alert", cell: (c) => h("strong", null, c.title) },
          { title: "Rule", cell: (c) => c.rule_name },
          { title: "Since", cell: (c) => when(c.since) },
          { title: "Times", cell: (c) => String(c.count) },
        ],
        "Nothing raised: all is well.",
        "Alerts raised now",
      ),
    ],
  )
}
