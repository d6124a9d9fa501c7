import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { check } from "#lib/cluster/probe.ts"
import { nodeSchema } from "#lib/cluster/schemas.ts"

export const detail = {
  operationId: "checkNodes",
  summary: "Probe every node in parallel, each within the probe deadline; returns all",
  tags: ["nodes"],
}

export const response = v.array(nodeSchema)

export const role = "operator"

export default defineHandler(async ({ ctx }) => Promise.all((await ctx.nodes.list()).map((node) => check(ctx, node))))
