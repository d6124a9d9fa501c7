import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { tarStream } from "#lib/http/schemas.ts"

export const detail = {
  operationId: "exportImages",
  summary:
    "The named images as one `docker save` tar stream; names are comma-separated (cluster bearer token required)",
  tags: ["move"],
}
export const query = v.object({
  names: v.pipe(v.string(), v.regex(/^[^,\s]+(,[^,\s]+)*$/, "comma-separated image references")),
})

export const response = tarStream("the images as `docker save` writes them")

export const access = "cluster"

export const role = "admin"

export default defineHandler<unknown, v.InferOutput<typeof query>>(async ({ query, ctx }) => {
  const tar = await ctx.engine.saveImages(query.names.split(","))
  return new Response(tar, { headers: { "content-type": "application/x-tar" } })
})
