// The shapes of the alert routes' input and answers.
import * as v from "valibot"
import { KINDS } from "./channels.ts"
import { EVENT_NAMES, RULE_KINDS } from "./rules.ts"

const text = (max: number, what: string) => v.pipe(v.string(), v.maxLength(max), v.description(what))
const iso = v.pipe(v.string(), v.description("ISO 8601 time"))

export const channelParams = v.object({ id: v.pipe(v.string(), v.regex(/^ch_[0-9a-f]{12}$/, "a channel id")) })
export const ruleParams = v.object({ id: v.pipe(v.string(), v.regex(/^rule_[0-9a-f]{12}$/, "a rule id")) })

export const channelInput = v.object({
  name: v.optional(text(64, "a name for people: 1 to 64 letters, digits, spaces and ._@()+-")),
  url: v.optional(
    text(
      4096,
      "the channel's service URL (discord://token@id, telegram://token@telegram?chats=…, smtp://user:pass@host:587/?from=…&to=…, gotify://host/token, ntfy://host/topic, slack://…, matrix://…, pushover://…, generic+https://…, https://…)",
    ),
  ),
  kind: v.optional(v.picklist(KINDS)),
  fields: v.optional(
    v.pipe(
      v.record(v.pipe(v.string(), v.maxLength(40)), v.pipe(v.string(), v.maxLength(2048))),
      v.description("the form's fields for `kind` (GET /api/alerts/kinds lists them) instead of a url"),
    ),
  ),
})

const status = v.object({
  state: v.picklist(["ok", "failing", "unknown"]),
  last_success: v.nullable(iso),
  last_failure: v.nullable(iso),
  last_error: v.nullable(v.string()),
  consecutive_failures: v.number(),
  pending: v.number(),
})

export const channelView = v.object({
  id: v.string(),
  name: v.string(),
  kind: v.picklist(KINDS),
  url: v.pipe(v.string(), v.description("the address with every credential masked (***)")),
  created: iso,
  updated: iso,
  status,
})

export const kindsView = v.array(
  v.object({
    kind: v.picklist(KINDS),
    fields: v.array(
      v.object({
        name: v.string(),
        label: v.string(),
        secret: v.optional(v.boolean()),
        required: v.optional(v.boolean()),
        hint: v.optional(v.string()),
      }),
    ),
  }),
)

export const testResult = v.object({
  ok: v.boolean(),
  error: v.nullable(v.pipe(v.string(), v.description("the service's answer, without credentials"))),
  duration_ms: v.number(),
})

const names = (what: string) =>
  v.optional(v.pipe(v.array(v.pipe(v.string(), v.maxLength(200))), v.maxLength(100), v.description(what)))
const percent = (what: string) =>
  v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(100_000), v.description(what)))

const ruleFields = {
  name: v.optional(text(64, "a name for people")),
  channels: v.optional(v.pipe(v.array(v.string()), v.maxLength(20), v.description("the channels (ids) it sends to"))),
  scope: v.optional(
    v.object({
      stacks: names("stacks by name (all when absent)"),
      labels: names("container labels, key or key=value (any when absent)"),
      nodes: names("registered nodes a node rule watches (all when absent)"),
    }),
  ),
  restarts: v.optional(
    v.pipe(v.number(), v.integer(), v.minValue(2), v.maxValue(1000), v.description("restart_loop: restarts")),
  ),
  minutes: v.optional(
    v.pipe(
      v.number(),
      v.minValue(0),
      v.maxValue(10_080),
      v.description(
        "restart_loop's window; how long a threshold or a replica shortfall lasts before it fires (and its recovery)",
      ),
    ),
  ),
  events: v.optional(v.array(v.picklist(EVENT_NAMES))),
  target: v.optional(v.picklist(["container", "host", "data", "engine"])),
  above: percent("fires above this percent (cpu: 100 is one core for a container)"),
  below: percent("recovers at or below this percent (default above - 5)"),
  recovery: v.optional(v.boolean()),
}

export const ruleInput = v.object({ kind: v.picklist(RULE_KINDS), ...ruleFields })
export const ruleUpdate = v.object(ruleFields)

export const ruleView = v.object({
  id: v.string(),
  name: v.string(),
  kind: v.picklist(RULE_KINDS),
  description: v.string(),
  channels: v.array(v.string()),
  scope: v.object({
    stacks: v.optional(v.array(v.string())),
    labels: v.optional(v.array(v.string())),
    nodes: v.optional(v.array(v.string())),
  }),
  restarts: v.optional(v.number()),
  minutes: v.optional(v.number()),
  events: v.optional(v.array(v.string())),
  target: v.optional(v.string()),
  above: v.optional(v.number()),
  below: v.optional(v.number()),
  recovery: v.boolean(),
  muted_until: v.nullable(iso),
  muted: v.boolean(),
  active: v.pipe(v.number(), v.description("conditions of this rule raised now")),
  created: iso,
  updated: iso,
})

export const muteInput = v.object({
  minutes: v.pipe(
    v.number(),
    v.minValue(0),
    v.maxValue(525_600),
    v.description("how long it sends nothing; 0 unmutes"),
  ),
})

export const historyQuery = v.object({
  cursor: v.optional(v.pipe(v.string(), v.regex(/^\d{1,15}$/, "a cursor is the `next` of a page before"))),
  limit: v.optional(
    v.pipe(v.string(), v.regex(/^\d{1,4}$/), v.transform(Number), v.minValue(1), v.maxValue(1000)),
    "100",
  ),
  rule: v.optional(v.string()),
  channel: v.optional(v.string()),
})

export const historyView = v.object({
  entries: v.array(
    v.object({
      seq: v.number(),
      time: iso,
      rule: v.nullable(v.string()),
      rule_name: v.string(),
      channel: v.string(),
      channel_name: v.string(),
      state: v.picklist(["firing", "resolved", "test"]),
      result: v.picklist(["sent", "failed"]),
      attempts: v.number(),
      grouped: v.number(),
      title: v.string(),
      stack: v.nullable(v.string()),
      error: v.nullable(v.string()),
    }),
  ),
  next: v.nullable(v.string()),
})

export const activeView = v.array(
  v.object({
    key: v.string(),
    rule: v.string(),
    rule_name: v.string(),
    title: v.string(),
    stack: v.nullable(v.string()),
    since: iso,
    count: v.number(),
    sent: v.boolean(),
  }),
)
