import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { nodeName, nodeSchema } from "#lib/cluster/schemas.ts"

export const detail = { operationId: "getNode", summary: "One node of the registry", tags: ["nodes"] }

export const params = v.object({ name: nodeName })
export const response = nodeSchema

export const role = "viewer"

export default defineHandler(async ({ params, ctx }) => ctx.nodes.get(params.name))
