import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { requestScan } from "#lib/images/scan-queue.ts"
import { engineRef } from "#lib/engine/schemas.ts"
import { scanRequestSchema } from "#lib/images/schemas.ts"

export const detail = {
  operationId: "scanImage",
  summary: "Queue a vulnerability scan of one image and answer at once (202); poll GET /api/images/{id}/scan",
  tags: ["images"],
}

export const params = v.object({ id: engineRef })
export const response = { 202: v.object({ ...scanRequestSchema.entries, result: v.string() }) }

export const role = "operator"

export default defineHandler(async ({ params, ctx, set }) => {
  const job = await requestScan(ctx.engine, ctx.scans, params.id)
  set.status = 202
  return { ...job, result: `/api/images/${job.image}/scan` }
})
