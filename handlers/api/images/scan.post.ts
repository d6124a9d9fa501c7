import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { requestScan } from "#lib/images/scan-queue.ts"
import { scanRequestSchema } from "#lib/images/schemas.ts"

export default defineRoute({
  role: "operator",
  detail: {
    operationId: "scanImages",
    summary: "Queue a vulnerability scan of every tagged image; results come later at /api/images/{id}/scan",
    tags: ["images"],
  },
  response: { 202: v.object({ queued: v.array(scanRequestSchema) }) },
  handler: async ({ ctx, set }) => {
    const tagged = (await ctx.engine.listImages()).filter((i) => (i.RepoTags ?? []).some((t) => t !== "<none>:<none>"))
    const queued = []
    for (const image of tagged) queued.push(await requestScan(ctx.engine, ctx.scans, image.Id))
    set.status = 202
    return { queued }
  },
})
