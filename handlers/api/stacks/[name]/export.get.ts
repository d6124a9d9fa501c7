import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { flag } from "#lib/http/query.ts"
import { stackExportSchema } from "#lib/copy/schemas.ts"
import { stackParams } from "#lib/stacks/name.ts"

export const detail = {
  operationId: "exportStack",
  summary:
    "The whole stack as JSON: compose file, environment with secrets in the clear, versions, images, mount inventory; sizes=true measures each volume (cluster bearer token required)",
  tags: ["move"],
}
export const query = v.object({ sizes: v.optional(flag) })

export const params = stackParams
export const response = stackExportSchema

export const access = "cluster"

export const role = "admin"

export default defineHandler<unknown, v.InferOutput<typeof query>>(async ({ params, query, ctx }) =>
  ctx.verbs.export(params.name, { sizes: query.sizes ?? false }),
)
