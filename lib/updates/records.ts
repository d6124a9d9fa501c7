// A stack's update record and policy, kept with the stack (in its records, <dataDir>/records/<name>/,
// so they go when the stack goes): owns their shapes, validation and files.
//
//   update-history.json   the last 50 guarded updates, newest first (no secret: reasons are redacted)
//   update-policy.json    {policy: {auto_update, schedule, watch}, state: {set_at, last_run, notified, rejected}}
//
// A schedule is an interval (`30s`, `15m`, `6h`, `1d`) or a cron expression (5 fields, or 6 with
// seconds first) read by croner; null follows SVC_UPDATE_INTERVAL.
import { Cron } from "croner"
import { join } from "node:path"
import * as v from "valibot"
import { readJson, writeJson } from "../data/datadir.ts"
import { invalid, notFound } from "../errors/errors.ts"
import { StackMemo } from "../stacks/memo.ts"
import type { Stacks } from "../stacks/store.ts"

export const VERDICTS = ["updated", "rolled_back", "rollback_failed", "unchanged"] as const
export type Verdict = (typeof VERDICTS)[number]

export interface ImageChange {
  service: string
  ref: string
  /** What ran before: `repo@sha256:...`, or the image id for an image with no registry digest. */
  from: string
  /** What the update brought (the same notation); null when the service's image did not move. */
  to: string | null
  from_id: string
  to_id: string | null
}

export interface UpdateOutcome {
  stack: string
  /** What was done: a pull and up (`update`), or a deploy, apply or rollback asked to be watched. */
  action: "update" | "deploy" | "apply" | "rollback"
  trigger: "api" | "policy"
  verdict: Verdict
  /** Why the watch failed (for rolled_back and rollback_failed). */
  reason: string | null
  /** What to do by hand (rollback_failed). */
  fix: string | null
  /** The stack's version the pin recorded (and a rollback returned to). */
  version: number | null
  images: ImageChange[]
  watch: number
  /** The watch of the new state ended before its window (certain early). */
  decided_early: boolean
  started_at: string
  finished_at: string
  duration_ms: number
}

export const HISTORY_LIMIT = 50

export const AUTO_UPDATE = ["off", "notify", "apply"] as const
export interface Policy {
  auto_update: (typeof AUTO_UPDATE)[number]
  schedule: string | null
  /** Seconds of health watch; null follows SVC_UPDATE_WATCH. */
  watch: number | null
}

export interface PolicyState {
  set_at: string | null
  last_run: string | null
  /** Remote digests already announced as update_available (per reference). */
  notified: Record<string, string>
  /** Remote digests an automatic update rolled back (per reference): not applied again automatically. */
  rejected: Record<string, string>
}

export const DEFAULT_POLICY: Policy = { auto_update: "off", schedule: null, watch: null }
const EMPTY_STATE: PolicyState = { set_at: null, last_run: null, notified: {}, rejected: {} }

const INTERVAL = /^(\d{1,6})(s|m|h|d)$/
const UNIT = { s: 1, m: 60, h: 3600, d: 86400 } as const

/** An interval schedule in seconds, or null for a cron expression. */
export function intervalSeconds(schedule: string): number | null {
  const m = INTERVAL.exec(schedule.trim())
  return m ? Number(m[1]) * UNIT[m[2] as keyof typeof UNIT] : null
}

/** Checks a schedule: an interval (at least 1 s), or a cron expression croner accepts. */
export function checkSchedule(schedule: string): void {
  const seconds = intervalSeconds(schedule)
  if (seconds !== null) {
    if (seconds < 1) throw invalid(`schedule ${schedule}: an interval is at least 1s`, "invalid_policy")
    return
  }
  try {
    new Cron(schedule, { paused: true })
  } catch (err) {
    throw invalid(
      `schedule "${schedule.slice(0, 100)}" is neither an interval (30s, 15m, 6h, 1d) nor a cron expression: ${err instanceof Error ? err.message : err}`,
      "invalid_policy",
    )
  }
}

/** When a schedule is next due after `after` (ms), null when never. */
export function nextDue(schedule: string, after: number): number | null {
  const seconds = intervalSeconds(schedule)
  if (seconds !== null) return after + seconds * 1000
  const next = new Cron(schedule, { paused: true }).nextRun(new Date(after))
  return next ? next.getTime() : null
}

export const policyBody = v.object({
  auto_update: v.picklist(AUTO_UPDATE, "auto_update must be one of off, notify, apply"),
  schedule: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(200)))),
  watch: v.optional(v.nullable(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(3600)))),
})
export type PolicyInput = v.InferOutput<typeof policyBody>

interface PolicyFile {
  policy: Policy
  state: PolicyState
}

export class UpdateRecords {
  private writing = new Map<string, Promise<unknown>>()
  /** Each stack's newest outcome (null: none) and its policy file, read once and kept by the writes here (the lists and the schedule ask them often). */
  private newest: StackMemo<UpdateOutcome | null>
  private policies: StackMemo<PolicyFile>

  constructor(
    private readonly stacks: Stacks,
    private readonly now: () => number = Date.now,
  ) {
    this.newest = new StackMemo(stacks, async (name) => (await this.history(name))[0] ?? null)
    this.policies = new StackMemo(stacks, async (name) => {
      const f = await readJson<Partial<PolicyFile>>(this.file(name, "policy"), {})
      return { policy: { ...DEFAULT_POLICY, ...f.policy }, state: { ...EMPTY_STATE, ...f.state } }
    })
  }

  private file(name: string, which: "history" | "policy"): string {
    return join(this.stacks.records(name), `update-${which}.json`)
  }

  /** Serialises the read-change-write of one stack's files. */
  private change<T>(name: string, fn: () => Promise<T>): Promise<T> {
    const next = (this.writing.get(name) ?? Promise.resolve()).catch(() => {}).then(fn)
    this.writing.set(name, next)
    next.finally(() => this.writing.get(name) === next && this.writing.delete(name)).catch(() => {})
    return next
  }

  async history(name: string): Promise<UpdateOutcome[]> {
    return readJson<UpdateOutcome[]>(this.file(name, "history"), [])
  }

  /** The stack's newest outcome, from memory after the first time. */
  async last(name: string): Promise<UpdateOutcome | undefined> {
    return (await this.newest.get(name)) ?? undefined
  }

  /** Adds an outcome to a stack's history; nothing for a stack gone meanwhile. */
  addHistory(name: string, outcome: UpdateOutcome): Promise<void> {
    return this.change(name, async () => {
      const history = [outcome, ...(await this.history(name))].slice(0, HISTORY_LIMIT)
      if (!this.stacks.has(name)) return
      writeJson(this.file(name, "history"), history)
      this.newest.set(name, outcome)
    })
  }

  /** The stack's policy and its state, from memory after the first time: not to be changed by the caller. */
  policyFile(name: string): Promise<PolicyFile> {
    return this.policies.get(name)
  }

  private writePolicy(name: string, f: PolicyFile): void {
    writeJson(this.file(name, "policy"), f)
    this.policies.set(name, f)
  }

  async policy(name: string): Promise<Policy> {
    return (await this.policyFile(name)).policy
  }

  /** Sets a stack's policy (404 for a stack gone meanwhile). */
  setPolicy(name: string, input: PolicyInput): Promise<Policy> {
    if (input.schedule) checkSchedule(input.schedule)
    return this.change(name, async () => {
      const f = await this.policyFile(name)
      if (!this.stacks.has(name)) throw notFound(`no stack named ${name}`)
      const policy: Policy = {
        auto_update: input.auto_update,
        schedule: input.schedule?.trim() || null,
        watch: input.watch ?? null,
      }
      this.writePolicy(name, { policy, state: { ...f.state, set_at: new Date(this.now()).toISOString() } })
      return policy
    })
  }

  /** Changes a stack's policy state (nothing for a stack gone). */
  updateState(name: string, fn: (s: PolicyState) => void): Promise<void> {
    return this.change(name, async () => {
      const f = structuredClone(await this.policyFile(name))
      if (!this.stacks.has(name)) return
      fn(f.state)
      this.writePolicy(name, f)
    })
  }
}
