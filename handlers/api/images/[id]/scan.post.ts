import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { requestScan } from "#lib/images/scan-queue.ts"
import { engineRef } from "#lib/engine/schemas.ts"
import { scanRequestSchema } from "#lib/images/schemas.ts"

export default defineRoute({
  role: "operator",
  detail: {
    operationId: "scanImage",
    summary: "Queue a vulnerability scan of one image and answer at once (202); poll GET /api/images/{id}/scan",
    tags: ["images"],
  },
  params: v.object({ id: engineRef }),
  response: { 202: v.object({ ...scanRequestSchema.entries, result: v.string() }) },
  handler: async ({ params, ctx, set }) => {
    const job = await requestScan(ctx.engine, ctx.scans, params.id)
    set.status = 202
    return { ...job, result: `/api/images/${job.image}/scan` }
  },
})
