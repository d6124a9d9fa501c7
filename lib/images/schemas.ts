// The response schemas of images' scans and update checks as the API answers them.
import * as v from "valibot"
import { imageSchema } from "../engine/schemas.ts"
import { SEVERITIES } from "./scanner.ts"

const nullableString = v.nullable(v.string())

/** A scan asked for: the image id, the reference the scanner is given, and that it waits in the queue. */
export const scanRequestSchema = v.object({ image: v.string(), ref: v.string(), state: v.literal("queued") })

export const scanSummarySchema = v.object({
  status: v.picklist(["done", "failed"]),
  scanner: nullableString,
  scanned_at: v.string(),
  counts: v.record(v.picklist(SEVERITIES), v.number()),
  error: nullableString,
})

const scanState = v.nullable(v.picklist(["queued", "running"]))

export const cveSchema = v.object({
  id: v.string(),
  package: v.string(),
  installed: v.string(),
  fixed: nullableString,
  severity: v.picklist(SEVERITIES),
  title: nullableString,
  link: nullableString,
})

/** An image's latest scan with its CVEs, and whether another is waiting or running; only `image` and `state` before the first result. */
export const scanResultSchema = v.union([
  v.object({
    ...scanSummarySchema.entries,
    image: v.string(),
    ref: v.string(),
    scanner_version: nullableString,
    started_at: v.string(),
    vulnerabilities: v.array(cveSchema),
    state: scanState,
  }),
  v.object({ image: v.string(), state: scanState }),
])

export const updateCheckSchema = v.object({
  ref: v.string(),
  image: nullableString,
  local_digests: v.array(v.string()),
  remote_digest: nullableString,
  update_available: v.nullable(v.boolean()),
  checked_at: v.string(),
  error: nullableString,
})

export const stackUpdateCheckSchema = v.object({
  stack: v.string(),
  images: v.array(v.string()),
  update_available: v.boolean(),
  checked_at: v.string(),
})

/** An image of GET /api/images: the engine's record, its latest scan summary and its update checks. */
export const imageWithStatusSchema = v.object({
  ...imageSchema.entries,
  scan: v.nullable(scanSummarySchema),
  scan_state: scanState,
  update_available: v.nullable(v.boolean()),
  update_checks: v.array(updateCheckSchema),
})
export type ImageWithStatus = v.InferOutput<typeof imageWithStatusSchema>
