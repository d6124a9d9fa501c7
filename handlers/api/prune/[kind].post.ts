import { defineHandler } from "#lib/http/handler.ts"
import { prune, pruneKind } from "#lib/engine/prune.ts"

export const detail = {
  summary: "Prune containers (stopped), images (dangling and unused), volumes (unused local) or networks (unused); answers what was removed and the space reclaimed",
  tags: ["prune"],
}

export default defineHandler(async ({ params, ctx }) => prune(ctx.engine, pruneKind(params.kind!)))
