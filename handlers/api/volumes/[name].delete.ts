import { defineHandler } from "#lib/http/handler.ts"

export const detail = { summary: "Delete a volume (409 while a container uses it)", tags: ["volumes"] }

export default defineHandler(async ({ params, ctx }) => {
  await ctx.engine.removeVolume(params.name!)
  return { name: params.name, removed: true }
})
