import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { notFound } from "#lib/errors/errors.ts"
import { engineRef } from "#lib/engine/schemas.ts"
import { scanResultSchema } from "#lib/images/schemas.ts"

export default defineRoute({
  role: "viewer",
  detail: {
    operationId: "getImageScan",
    summary: "The latest scan result of an image with the full CVE list; 404 when it was never scanned",
    tags: ["images"],
  },
  params: v.object({ id: engineRef }),
  response: scanResultSchema,
  handler: async ({ params, ctx }) => {
    const { Id } = await ctx.engine.inspectImage(params.id)
    const state = ctx.scans.state(Id) ?? null
    const result = await ctx.scans.result(Id)
    if (!result && !state) throw notFound(`image ${params.id} was never scanned`, "not_scanned")
    return result ? { ...result, state } : { image: Id, state }
  },
})
