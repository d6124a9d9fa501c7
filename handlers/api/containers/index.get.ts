import * as v from "valibot"
import { containerRecord } from "#lib/engine/containers.ts"
import { defineRoute } from "#lib/service/handler.ts"
import { flagFor } from "#lib/http/query.ts"
import { containerSchema } from "#lib/engine/schemas.ts"
import { redactorFor } from "#lib/stacks/env.ts"

export default defineRoute({
  role: "viewer",
  detail: {
    operationId: "listContainers",
    summary: "List containers: running ones, or every one with all=true",
    tags: ["containers"],
  },
  query: v.object({ all: v.optional(flagFor("include stopped containers (default: running ones only)")) }),
  response: v.array(containerSchema),
  handler: async ({ query, ctx }) =>
    (await ctx.engine.listContainers({ all: query.all ?? false })).map((c) =>
      containerRecord(c, redactorFor(ctx.stacks)),
    ),
})
