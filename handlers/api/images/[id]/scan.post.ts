import { defineHandler } from "#lib/http/handler.ts"
import { requestScan } from "#lib/images/scan-queue.ts"

export const detail = { summary: "Queue a vulnerability scan of one image and answer at once (202); poll GET /api/images/{id}/scan", tags: ["images"] }

export default defineHandler(async ({ params, ctx, set }) => {
  const job = await requestScan(ctx.engine, ctx.scans, params.id!)
  set.status = 202
  return { ...job, result: `/api/images/${job.image}/scan` }
})
