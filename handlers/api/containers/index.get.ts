import * as v from "valibot"
import { containerRecord } from "#lib/engine/containers.ts"
import { defineHandler } from "#lib/service/handler.ts"
import { flagFor } from "#lib/http/query.ts"
import { containerSchema } from "#lib/engine/schemas.ts"
import { redactorFor } from "#lib/stacks/env.ts"

export const query = v.object({ all: v.optional(flagFor("include stopped containers (default: running ones only)")) })
export const detail = {
  operationId: "listContainers",
  summary: "List containers: running ones, or every one with all=true",
  tags: ["containers"],
}

export const response = v.array(containerSchema)

export const role = "viewer"

export default defineHandler<unknown, v.InferOutput<typeof query>>(async ({ query, ctx }) =>
  (await ctx.engine.listContainers({ all: query.all ?? false })).map((c) =>
    containerRecord(c, redactorFor(ctx.stacks)),
  ),
)
