import { defineHandler } from "#lib/http/handler.ts"

export const detail = { summary: "Delete a network (409 while containers are attached)", tags: ["networks"] }

export default defineHandler(async ({ params, ctx }) => {
  await ctx.engine.removeNetwork(params.id!)
  return { id: params.id, removed: true }
})
