import * as v from "valibot"
import { runAction } from "#lib/engine/containers.ts"
import { defineRoute } from "#lib/service/handler.ts"
import { engineRef } from "#lib/engine/schemas.ts"

export default defineRoute({
  role: "operator",
  detail: {
    operationId: "containerAction",
    summary: "Start, stop, restart, pause or unpause a container; answers its state afterwards",
    tags: ["containers"],
  },
  params: v.object({ id: engineRef }),
  body: v.pipe(
    v.object({
      action: v.pipe(
        v.picklist(
          ["start", "stop", "restart", "pause", "unpause"],
          "must be one of start, stop, restart, pause, unpause",
        ),
        v.description("what to do with the container"),
      ),
    }),
    v.examples([{ action: "restart" as const }]),
  ),
  response: v.object({ id: v.string(), action: v.string(), state: v.string() }),
  handler: async ({ params, body, ctx }) => runAction(ctx.engine, params.id, body.action),
})
