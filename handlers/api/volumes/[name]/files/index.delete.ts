import * as v from "valibot"
import { volumeParams } from "#lib/volumes/schemas.ts"
import { defineRoute } from "#lib/service/handler.ts"
import { parsePath, pathOf } from "#lib/files/paths.ts"
import { pathQuery } from "#lib/files/schemas.ts"

export default defineRoute({
  role: "operator",
  detail: {
    operationId: "removeVolumeFile",
    summary:
      "Remove a file, a link (never what it leads to) or a folder with everything below it from the volume's files",
    tags: ["volumes"],
  },
  params: volumeParams,
  query: pathQuery,
  response: v.object({ path: v.string(), path64: v.optional(v.string()), removed: v.literal(true) }),
  handler: async ({ params, query, ctx }) => {
    const path = parsePath(query)
    await (await ctx.files.volume(params.name)).remove(path)
    return { ...pathOf(path), removed: true as const }
  },
})
