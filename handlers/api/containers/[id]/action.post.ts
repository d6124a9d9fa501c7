import * as v from "valibot"
import { defineHandler } from "../../../../lib/handler.ts"

export const body = v.object({ action: v.picklist(["start", "stop", "restart", "pause", "unpause"], "must be one of start, stop, restart, pause, unpause") })
export const detail = { summary: "Start, stop, restart, pause or unpause a container", tags: ["containers"] }

export default defineHandler<v.InferOutput<typeof body>>(async ({ params, body, ctx }) => {
  await ctx.engine.containerAction(params.id!, body.action)
  const after = await ctx.engine.inspectContainer(params.id!)
  return { id: after.Id, action: body.action, state: after.State.Status }
})
