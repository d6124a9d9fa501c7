import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { stackNameSchema } from "#lib/stacks/name.ts"
import { versionParam } from "#lib/stacks/schemas.ts"

export const detail = {
  operationId: "deleteStackVersion",
  summary: "Delete a version; the current one cannot be deleted (409)",
  tags: ["stacks"],
}

export const params = v.object({ name: stackNameSchema, version: versionParam })
export const response = v.object({ deleted: v.number() })

export const role = "operator"

export default defineHandler<unknown, unknown, v.InferOutput<typeof params>>(async ({ params, ctx }) =>
  ctx.verbs.deleteVersion(params.name, params.version),
)
