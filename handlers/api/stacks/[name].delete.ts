import * as v from "valibot"
import { defineHandler } from "#lib/http/handler.ts"
import { flag } from "#lib/http/query.ts"
import { stackName } from "#lib/stacks/name.ts"

export const query = v.object({ volumes: v.optional(flag) })
export const detail = { summary: "Remove a stack: its containers, networks and files; named volumes stay unless volumes=true", tags: ["stacks"] }

export default defineHandler<unknown, v.InferOutput<typeof query>>(async ({ params, query, ctx }) => {
  const name = stackName(params.name)
  await ctx.stacks.remove(name, { volumes: query.volumes ?? false })
  return { removed: name, volumes_removed: query.volumes ?? false }
})
