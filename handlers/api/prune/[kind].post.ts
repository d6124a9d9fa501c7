import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { prune, pruneKind } from "#lib/engine/prune.ts"
import { pruneSchema } from "#lib/engine/schemas.ts"

export const detail = {
  operationId: "prune",
  summary:
    "Prune containers (stopped), images (dangling and unused), volumes (unused local) or networks (unused); answers what was removed and the space reclaimed",
  tags: ["prune"],
}

export const params = v.object({
  kind: v.pipe(v.string(), v.description("containers, images, volumes or networks (404 for anything else)")),
})
export const response = pruneSchema

export const role = "admin"

export default defineHandler(async ({ params, ctx }) => prune(ctx.engine, pruneKind(params.kind)))
