import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { tarStream } from "#lib/http/schemas.ts"

export default defineRoute({
  role: "admin",
  access: "cluster",
  detail: {
    operationId: "exportImages",
    summary:
      "The named images as one `docker save` tar stream; names are comma-separated (cluster bearer token required)",
    tags: ["move"],
  },
  query: v.object({
    names: v.pipe(v.string(), v.regex(/^[^,\s]+(,[^,\s]+)*$/, "comma-separated image references")),
  }),
  response: tarStream("the images as `docker save` writes them"),
  handler: async ({ query, ctx }) => {
    const tar = await ctx.engine.saveImages(query.names.split(","))
    return new Response(tar, { headers: { "content-type": "application/x-tar" } })
  },
})
