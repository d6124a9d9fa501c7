import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { invalid } from "#lib/errors/errors.ts"

export default defineRoute({
  role: "admin",
  access: "cluster",
  detail: {
    operationId: "importImages",
    summary: "Load images from a `docker save` tar body (cluster bearer token required)",
    tags: ["move"],
  },
  accepts: ["application/x-tar"],
  response: v.object({ loaded: v.literal(true) }),
  handler: async ({ request, ctx }) => {
    if (!request.body) throw invalid("the body must be a tar archive", "missing_body")
    await ctx.engine.loadImages(request.body)
    return { loaded: true }
  },
})
