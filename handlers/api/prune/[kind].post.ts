import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { prune, pruneKind } from "#lib/engine/prune.ts"
import { pruneSchema } from "#lib/engine/schemas.ts"

export default defineRoute({
  role: "admin",
  detail: {
    operationId: "prune",
    summary:
      "Prune containers (stopped), images (dangling and unused), volumes (unused local) or networks (unused); answers what was removed and the space reclaimed",
    tags: ["prune"],
  },
  params: v.object({
    kind: v.pipe(v.string(), v.description("containers, images, volumes or networks (404 for anything else)")),
  }),
  response: pruneSchema,
  handler: async ({ params, ctx }) => prune(ctx.engine, pruneKind(params.kind)),
})
