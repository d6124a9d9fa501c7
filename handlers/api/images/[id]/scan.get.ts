import { defineHandler } from "#lib/http/handler.ts"
import { notFound } from "#lib/http/http-error.ts"

export const detail = { summary: "The latest scan result of an image with the full CVE list; 404 when it was never scanned", tags: ["images"] }

export default defineHandler(async ({ params, ctx }) => {
  const { Id } = await ctx.engine.inspectImage(params.id!)
  const state = ctx.scans.state(Id) ?? null
  const result = await ctx.scans.result(Id)
  if (!result && !state) throw notFound(`image ${params.id} was never scanned`, "not_scanned")
  return result ? { ...result, state } : { image: Id, state }
})
