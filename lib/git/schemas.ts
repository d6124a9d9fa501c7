// The answers of the git routes: a stack's git status, what attaching answers, a sync's outcome.
import * as v from "valibot"
import { publicSourceSchema } from "./source.ts"

export const syncOutcomeSchema = v.object({
  time: v.string(),
  trigger: v.picklist(["api", "webhook", "schedule"]),
  commit: v.nullable(v.string()),
  verdict: v.string(),
  error: v.nullable(v.string()),
  version: v.nullable(v.number()),
})

export const gitStatusSchema = v.object({
  ...publicSourceSchema.entries,
  remote_head: v.nullable(v.string()),
  remote_error: v.nullable(v.string()),
  differ: v.boolean(),
  /** The commit the schedule does not try again (its last sync refused it or rolled it back, and the branch is still there); null otherwise. */
  schedule_held: v.nullable(v.string()),
  /** The sync under way (null when none runs): what asked for it, since when, its step, the commit it deploys once fetched, and whether another sync waits behind it. */
  syncing: v.nullable(
    v.object({
      trigger: v.picklist(["api", "webhook", "schedule"]),
      since: v.string(),
      step: v.picklist(["fetching", "deploying"]),
      commit: v.nullable(v.string()),
      queued: v.boolean(),
    }),
  ),
})

export const attachedSchema = v.object({
  created: v.boolean(),
  source: publicSourceSchema,
  /** Shown once, when the source gets a new one. */
  webhook_secret: v.optional(v.string()),
  sync: v.nullable(syncOutcomeSchema),
})
