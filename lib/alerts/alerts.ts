// The alerts: channels and rules kept by the service, the conditions they raise and end, delivery,
// the history. What a handler calls is here; watch.ts turns what happens into conditions,
// conditions.ts keeps them, dispatch.ts delivers. A channel leaves this module only as its view:
// its URL masked, never a credential.
import { conflict, invalid, notFound } from "../errors/errors.ts"
import type { NewEvent } from "../engine/events.ts"
import { parseChannelUrl, urlFromForm, type Kind, type Target } from "./channels.ts"
import { Conditions, type Condition, type Raise } from "./conditions.ts"
import { Dispatcher, type Alert, type ChannelStatus } from "./dispatch.ts"
import { describe, EVENT_NAMES, covers, muted, type Rule } from "./rules.ts"
import { AlertFiles, type Channel, type HistoryEntry } from "./store.ts"
import { Watch, type Sources } from "./watch.ts"

export interface ChannelView {
  id: string
  name: string
  kind: Kind
  /** The address with every credential masked. */
  url: string
  created: string
  updated: string
  status: ChannelStatus
}

export type RuleView = Rule & { description: string; muted: boolean; active: number }

/** A channel as given: its URL, or a kind with its form's fields. */
export interface ChannelInput {
  name?: string
  url?: string
  kind?: Kind
  fields?: Record<string, string>
}

export type RuleInput = Partial<Omit<Rule, "id" | "created" | "updated" | "muted_until">> & {
  muted_until?: string | null
}

/** A notification of the events that already notify (lib/updates/notify.ts). */
export interface NotificationLike {
  event: string
  stack?: string | null
  message: string
}

export interface AlertsOptions {
  dataDir: string
  server: string
  events?: { publish(e: NewEvent): unknown }
  now?: () => number
  fetch?: typeof fetch
  /** Where the services' own APIs are reached (SVC_ALERT_API_URLS). */
  apiBases?: Partial<Record<Kind, string>>
  /** Seconds between polls of what has no event (SVC_ALERT_POLL). */
  pollSeconds?: number
  backoff?: number[]
  rate?: { burst: number; everyMs: number }
  /** How long a container runs again before its death counts as over (lib/alerts/watch.ts SETTLE_MS). */
  settleMs?: number
}

const NAME = /^[\p{L}\p{N}][\p{L}\p{N} ._@()+-]{0,63}$/u
const id = (prefix: string) => `${prefix}_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`

export class Alerts {
  readonly files: AlertFiles
  readonly dispatch: Dispatcher
  readonly conditions: Conditions
  private channelList: Channel[] = []
  private ruleList: Rule[] = []
  private readonly recent = new Map<string, number>()
  private loaded: Promise<void> | undefined
  private watch: Watch | undefined

  constructor(private readonly parts: AlertsOptions) {
    this.files = new AlertFiles(parts.dataDir)
    this.dispatch = new Dispatcher({
      files: this.files,
      server: parts.server,
      channel: async (cid) => {
        const c = this.channelList.find((x) => x.id === cid)
        return c && { target: this.target(c), name: c.name }
      },
      kindOf: (cid) => {
        const c = this.channelList.find((x) => x.id === cid)
        return c && this.target(c).kind
      },
      events: parts.events,
      now: parts.now,
      fetch: parts.fetch,
      backoff: parts.backoff,
      rate: parts.rate,
    })
    this.conditions = new Conditions({
      rule: (rid) => this.ruleList.find((r) => r.id === rid),
      emit: (rule, state, r) => this.emit(rule, state, r),
      now: this.now,
      save: (all) => this.files.write("state.json", all),
    })
  }

  private now = () => (this.parts.now ?? Date.now)()

  /** Reads what is kept (once) and takes up the deliveries a stopped process left. */
  load(): Promise<void> {
    this.loaded ??= (async () => {
      ;[this.channelList, this.ruleList] = await Promise.all([this.files.channels(), this.files.rules()])
      this.conditions.load(await this.files.read<Condition[]>("state.json", []))
      await this.dispatch.load()
    })()
    return this.loaded
  }

  /** Whether anything is kept: a service with no channels and rules runs no watch. */
  get configured(): boolean {
    return this.ruleList.length > 0
  }

  /** Watches what the rules name until the signal aborts. */
  async run(sources: Sources, signal: AbortSignal): Promise<void> {
    await this.load()
    this.watch = new Watch({
      conditions: this.conditions,
      rules: () => this.ruleList,
      sources,
      now: this.now,
      pollMs: (this.parts.pollSeconds ?? 15) * 1000,
      settleMs: this.parts.settleMs,
    })
    signal.addEventListener("abort", () => void this.stop(), { once: true })
    await this.watch.run(signal)
  }

  /** Stops the timers and resolves once what is pending is written (the conditions, the outbox). */
  stop(): Promise<void> {
    this.conditions.stop()
    this.dispatch.stop()
    return this.files.settled()
  }

  /** Each channel's address read once (a channel's URL is replaced, never changed in place). */
  private readonly targets = new WeakMap<Channel, Target>()

  private target(c: Channel): Target {
    let t = this.targets.get(c)
    if (!t) this.targets.set(c, (t = parseChannelUrl(c.url, this.parts.apiBases)))
    return t
  }

  private view(c: Channel): ChannelView {
    const t = this.target(c)
    return {
      id: c.id,
      name: c.name,
      kind: t.kind,
      url: t.masked,
      created: c.created,
      updated: c.updated,
      status: this.dispatch.channelStatus(c.id),
    }
  }

  async channels(): Promise<ChannelView[]> {
    await this.load()
    return this.channelList.map((c) => this.view(c))
  }

  private channel(cid: string): Channel {
    const c = this.channelList.find((x) => x.id === cid)
    if (!c) throw notFound(`no alert channel ${cid}`, "channel_not_found")
    return c
  }

  private checkName(name: string | undefined, list: { id: string; name: string }[], self?: string): string {
    if (!name || !NAME.test(name))
      throw invalid("a name is 1 to 64 letters, digits, spaces and ._@()+-", "invalid_name")
    if (list.some((x) => x.name === name && x.id !== self)) throw conflict(`the name ${name} is taken`, "name_taken")
    return name
  }

  /** The URL a channel input gives (read back to check it). */
  private urlOf(input: ChannelInput): string {
    const url = input.url ?? (input.kind ? urlFromForm(input.kind, input.fields ?? {}) : undefined)
    if (!url) throw invalid("a channel has a url, or a kind with its fields", "invalid_channel")
    parseChannelUrl(url, this.parts.apiBases)
    return url
  }

  async addChannel(input: ChannelInput): Promise<ChannelView> {
    await this.load()
    const name = this.checkName(input.name, this.channelList)
    const at = new Date(this.now()).toISOString()
    const c: Channel = { id: id("ch"), name, url: this.urlOf(input), created: at, updated: at }
    this.channelList = [...this.channelList, c]
    this.files.saveChannels(this.channelList)
    return this.view(c)
  }

  /** Renames a channel, or replaces its address whole (a new address brings its credentials again). */
  async updateChannel(cid: string, input: ChannelInput): Promise<ChannelView> {
    await this.load()
    const old = this.channel(cid)
    const c: Channel = {
      ...old,
      name: input.name === undefined ? old.name : this.checkName(input.name, this.channelList, cid),
      url: input.url === undefined && input.kind === undefined ? old.url : this.urlOf(input),
      updated: new Date(this.now()).toISOString(),
    }
    this.channelList = this.channelList.map((x) => (x.id === cid ? c : x))
    this.files.saveChannels(this.channelList)
    return this.view(c)
  }

  async removeChannel(cid: string): Promise<void> {
    await this.load()
    this.channel(cid)
    const users = this.ruleList.filter((r) => r.channels.includes(cid)).map((r) => r.name)
    if (users.length)
      throw conflict(
        `the channel is used by the rules ${users.join(", ")}: take it out of them first`,
        "channel_in_use",
      )
    this.channelList = this.channelList.filter((x) => x.id !== cid)
    this.files.saveChannels(this.channelList)
    this.dispatch.drop(cid)
  }

  /** Sends a test message now; the result goes into the history too. */
  async testChannel(cid: string): Promise<{ ok: boolean; error: string | null; duration_ms: number }> {
    await this.load()
    const c = this.channel(cid)
    const at = new Date(this.now()).toISOString()
    const alert: Alert = {
      id: id("test"),
      rule: null,
      rule_name: "test",
      state: "test",
      severity: "info",
      title: `Test from Harbormaster on ${this.parts.server}`,
      text: `This is a test of the channel ${c.name}: alerts sent to it will arrive like this.`,
      stack: null,
      time: at,
    }
    const started = performance.now()
    const error = await this.dispatch.sendNow(c.id, { target: this.target(c), name: c.name }, alert)
    const duration_ms = Math.round(performance.now() - started)
    this.files.append([
      {
        time: at,
        rule: null,
        rule_name: "test",
        channel: c.id,
        channel_name: c.name,
        state: "test",
        result: error ? "failed" : "sent",
        attempts: 1,
        grouped: 1,
        title: alert.title,
        stack: null,
        error,
      },
    ])
    return { ok: !error, error, duration_ms }
  }

  private ruleView(r: Rule): RuleView {
    return {
      ...r,
      description: describe(r),
      muted: muted(r, this.now()),
      active: this.conditions.list().filter((c) => c.rule === r.id).length,
    }
  }

  async rules(): Promise<RuleView[]> {
    await this.load()
    return this.ruleList.map((r) => this.ruleView(r))
  }

  private rule(rid: string): Rule {
    const r = this.ruleList.find((x) => x.id === rid)
    if (!r) throw notFound(`no alert rule ${rid}`, "rule_not_found")
    return r
  }

  /** A rule as asked, checked: its channels exist, its parameters fit its kind. */
  private checkRule(r: Rule): Rule {
    for (const cid of r.channels)
      if (!this.channelList.some((c) => c.id === cid)) throw invalid(`no alert channel ${cid}`, "channel_not_found")
    if ((r.kind === "cpu" || r.kind === "memory" || r.kind === "disk") && typeof r.above !== "number")
      throw invalid(`a ${r.kind} rule needs its threshold: above (percent)`, "invalid_rule")
    if (r.kind === "disk" && r.target !== undefined && r.target !== "data" && r.target !== "engine")
      throw invalid("a disk rule's target is data or engine", "invalid_rule")
    if (
      (r.kind === "cpu" || r.kind === "memory") &&
      r.target !== undefined &&
      r.target !== "container" &&
      r.target !== "host"
    )
      throw invalid(`a ${r.kind} rule's target is container or host`, "invalid_rule")
    if (r.below !== undefined && r.above !== undefined && r.below > r.above)
      throw invalid("below (the recovery mark) is at most above", "invalid_rule")
    if (r.events?.some((e) => !(EVENT_NAMES as readonly string[]).includes(e)))
      throw invalid(`events are among ${EVENT_NAMES.join(", ")}`, "invalid_rule")
    return r
  }

  async addRule(input: RuleInput): Promise<RuleView> {
    await this.load()
    const at = new Date(this.now()).toISOString()
    const rule = this.checkRule({
      recovery: true,
      scope: {},
      channels: [],
      ...input,
      id: id("rule"),
      name: this.checkName(input.name, this.ruleList),
      kind: input.kind!,
      muted_until: input.muted_until ?? null,
      created: at,
      updated: at,
    })
    this.ruleList = [...this.ruleList, rule]
    this.files.saveRules(this.ruleList)
    return this.ruleView(rule)
  }

  async updateRule(rid: string, input: RuleInput): Promise<RuleView> {
    await this.load()
    const old = this.rule(rid)
    if (input.kind !== undefined && input.kind !== old.kind)
      throw invalid("a rule's kind cannot change", "invalid_rule")
    const rule = this.checkRule({
      ...old,
      ...input,
      name: input.name === undefined ? old.name : this.checkName(input.name, this.ruleList, rid),
      updated: new Date(this.now()).toISOString(),
    })
    this.ruleList = this.ruleList.map((r) => (r.id === rid ? rule : r))
    this.files.saveRules(this.ruleList)
    return this.ruleView(rule)
  }

  async removeRule(rid: string): Promise<void> {
    await this.load()
    this.rule(rid)
    this.ruleList = this.ruleList.filter((r) => r.id !== rid)
    this.files.saveRules(this.ruleList)
    this.conditions.dropRule(rid)
  }

  /** Mutes a rule for `minutes` (0: unmutes it). A caller limited to some stacks mutes only rules limited to them. */
  async mute(rid: string, minutes: number, stacks?: string[]): Promise<RuleView> {
    await this.load()
    const rule = this.rule(rid)
    if (stacks && !(rule.scope.stacks?.length && rule.scope.stacks.every((s) => stacks.includes(s))))
      throw notFound(`no alert rule ${rid}`, "rule_not_found")
    const until = minutes > 0 ? new Date(this.now() + minutes * 60_000).toISOString() : null
    return this.updateRule(rid, { muted_until: until })
  }

  /** The conditions raised now. */
  async active(): Promise<(Condition & { rule_name: string })[]> {
    await this.load()
    return this.conditions
      .list()
      .map((c) => ({ ...c, rule_name: this.ruleList.find((r) => r.id === c.rule)?.name ?? c.rule }))
  }

  async history(
    q: { limit: number; cursor?: string; rule?: string; channel?: string },
    visible: (stack: string | null) => boolean,
  ): Promise<{ entries: HistoryEntry[]; next: string | null }> {
    return this.files.history(
      q.limit,
      q.cursor === undefined ? undefined : Number(q.cursor),
      (e) => (!q.rule || e.rule === q.rule) && (!q.channel || e.channel === q.channel) && visible(e.stack),
    )
  }

  /** An event that already notifies: sent once to the `event` rules naming it (the same one twice within a minute once). */
  notification(n: NotificationLike): void {
    const rules = this.ruleList.filter(
      (r) =>
        r.kind === "event" &&
        (!r.events?.length || r.events.includes(n.event)) &&
        covers(r.scope, { stack: n.stack ?? null }),
    )
    if (!rules.length) return
    const key = `${n.event}\u0000${n.stack ?? ""}\u0000${n.message}`
    const now = this.now()
    if (now - (this.recent.get(key) ?? -Infinity) < 60_000) return
    this.recent.set(key, now)
    for (const [k, t] of this.recent) if (now - t >= 60_000) this.recent.delete(k)
    const critical = ["rollback_failed", "scan_found_critical", "mount_refused", "backup_failed", "copy_failed"]
    for (const rule of rules)
      if (!muted(rule, now))
        this.emit(rule, "firing", {
          title: `${n.event.replaceAll("_", " ")}${n.stack ? ` (${n.stack})` : ""}`,
          text: n.message,
          stack: n.stack ?? null,
          severity: critical.includes(n.event) ? "critical" : "info",
        })
  }

  private emit(rule: Rule, state: "firing" | "resolved", r: Raise): void {
    if (!rule.channels.length) return
    this.dispatch.enqueue(
      {
        id: id("a"),
        rule: rule.id,
        rule_name: rule.name,
        state,
        severity: r.severity ?? (state === "resolved" ? "resolved" : "warning"),
        title: r.title,
        text: r.text,
        stack: r.stack,
        time: new Date(this.now()).toISOString(),
      },
      rule.channels,
    )
  }

  /** What /metrics reads: alerts by rule, channel and result; channels failing and pending; conditions by rule. */
  metrics(): {
    alerts: { rule: string; channel: string; result: string; n: number }[]
    channels: { channel: string; failing: number; pending: number }[]
    active: { rule: string; n: number }[]
  } {
    return {
      alerts: [...this.dispatch.counts].map(([k, n]) => {
        const [rule, channel, result] = k.split("\u0000") as [string, string, string]
        return { rule, channel, result, n }
      }),
      channels: this.channelList.map((c) => {
        const s = this.dispatch.channelStatus(c.id)
        return { channel: c.name, failing: s.state === "failing" ? 1 : 0, pending: s.pending }
      }),
      active: this.ruleList.map((r) => ({
        rule: r.name,
        n: this.conditions.list().filter((c) => c.rule === r.id).length,
      })),
    }
  }
}
