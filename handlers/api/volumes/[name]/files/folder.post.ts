import { volumeParams } from "#lib/volumes/schemas.ts"
import { defineRoute } from "#lib/service/handler.ts"
import * as s from "valibot"
import { parsePath, pathOf } from "#lib/files/paths.ts"
import { pathFields, writtenSchema } from "#lib/files/schemas.ts"

export default defineRoute({
  role: "operator",
  detail: {
    operationId: "makeVolumeFolder",
    summary: "Make a folder in the volume's files (owned as the folder holding it); 409 when the name is taken",
    tags: ["volumes"],
  },
  params: volumeParams,
  body: s.object(pathFields),
  response: { 201: writtenSchema },
  handler: async ({ params, body, ctx, set }) => {
    const path = parsePath(body)
    await (await ctx.files.volume(params.name)).mkdir(path)
    set.status = 201
    return pathOf(path)
  },
})
