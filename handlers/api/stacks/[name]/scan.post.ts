import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { errorKind } from "#lib/http/http-error.ts"
import { requestScan } from "#lib/images/scan-queue.ts"
import { stackImageRefs } from "#lib/stacks/images.ts"
import { scanRequestSchema } from "#lib/images/schemas.ts"
import { stackParams } from "#lib/stacks/name.ts"

export default defineRoute({
  role: "operator",
  detail: {
    operationId: "scanStack",
    summary:
      "Queue a vulnerability scan of every image of a stack (202); images not present locally are listed as missing",
    tags: ["stacks"],
  },
  params: stackParams,
  response: {
    202: v.object({ stack: v.string(), queued: v.array(scanRequestSchema), missing: v.array(v.string()) }),
  },
  handler: async ({ params, ctx, set }) => {
    const queued = []
    const missing = []
    for (const ref of await stackImageRefs(ctx.stacks, ctx.engine, params.name)) {
      const job = await requestScan(ctx.engine, ctx.scans, ref).catch((err) => {
        if (errorKind(err) === "not_found") return undefined
        throw err
      })
      if (job) queued.push(job)
      else missing.push(ref)
    }
    set.status = 202
    return { stack: params.name, queued, missing }
  },
})
