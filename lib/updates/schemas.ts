// The response schemas of guarded updates: one update's outcome and a stack's update policy.
import * as v from "valibot"
import { stackSchema } from "../stacks/schemas.ts"
import { AUTO_UPDATE, VERDICTS } from "./records.ts"

const nullableString = v.nullable(v.string())

export const imageChangeSchema = v.object({
  service: v.string(),
  ref: v.string(),
  from: v.string(),
  to: nullableString,
  from_id: v.string(),
  to_id: nullableString,
})

export const updateOutcomeSchema = v.object({
  stack: v.string(),
  action: v.picklist(["update", "deploy", "apply", "rollback"]),
  trigger: v.picklist(["api", "policy"]),
  verdict: v.picklist(VERDICTS),
  reason: nullableString,
  fix: nullableString,
  version: v.nullable(v.number()),
  images: v.array(imageChangeSchema),
  watch: v.number(),
  decided_early: v.boolean(),
  started_at: v.string(),
  finished_at: v.string(),
  duration_ms: v.number(),
})
export type UpdateOutcomeAnswer = v.InferOutput<typeof updateOutcomeSchema>

export const policySchema = v.object({
  stack: v.string(),
  auto_update: v.picklist(AUTO_UPDATE),
  schedule: nullableString,
  watch: v.nullable(v.number()),
})

/** A stack after a deploy, apply, rollback or update: with `update`, the verdict of its watch. */
export const stackUpdatedSchema = v.object({ ...stackSchema.entries, update: v.optional(updateOutcomeSchema) })
