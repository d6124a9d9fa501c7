import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { check } from "#lib/cluster/probe.ts"
import { nodeName, nodeSchema } from "#lib/cluster/schemas.ts"

export const detail = {
  operationId: "checkNode",
  summary: "Probe one node and return it with the result",
  tags: ["nodes"],
}

export const params = v.object({ name: nodeName })
export const response = nodeSchema

export const role = "operator"

export default defineHandler(async ({ params, ctx }) => check(ctx, await ctx.nodes.get(params.name)))
