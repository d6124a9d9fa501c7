import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { requestScan } from "#lib/images/scan-queue.ts"
import { engineRef } from "#lib/engine/schemas.ts"
import { flagFor } from "#lib/http/query.ts"
import { scanRequestSchema } from "#lib/images/schemas.ts"
import { pulledIfMissing } from "#lib/registries/pull.ts"

export default defineRoute({
  role: "operator",
  detail: {
    operationId: "scanImage",
    summary:
      "Queue a vulnerability scan of one image and answer at once (202); poll GET /api/images/{id}/scan. With pull=true an image not here is pulled first, with its registry's kept credentials",
    tags: ["images"],
  },
  params: v.object({ id: engineRef }),
  query: v.object({
    pull: v.optional(flagFor("pull the image first when it is not here (a private one with its kept credentials)")),
  }),
  response: { 202: v.object({ ...scanRequestSchema.entries, result: v.string() }) },
  handler: async ({ params, query, ctx, set }) => {
    if (query.pull) await pulledIfMissing(ctx.engine, ctx.registries, params.id)
    const job = await requestScan(ctx.engine, ctx.scans, params.id)
    set.status = 202
    return { ...job, result: `/api/images/${job.image}/scan` }
  },
})
