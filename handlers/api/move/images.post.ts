import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { badRequest } from "#lib/http/http-error.ts"

export const detail = {
  operationId: "importImages",
  summary: "Load images from a `docker save` tar body (cluster bearer token required)",
  tags: ["move"],
}
export const accepts = ["application/x-tar"]

export const response = v.object({ loaded: v.literal(true) })

export const access = "cluster"

export const role = "admin"

export default defineHandler(async ({ request, ctx }) => {
  if (!request.body) throw badRequest("the body must be a tar archive", "missing_body")
  await ctx.engine.loadImages(request.body)
  return { loaded: true }
})
