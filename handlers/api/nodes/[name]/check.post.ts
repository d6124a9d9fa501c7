import { defineHandler } from "#lib/http/handler.ts"
import { check } from "#lib/cluster/probe.ts"

export const detail = { summary: "Probe one node and return it with the result", tags: ["nodes"] }

export default defineHandler(async ({ params, ctx }) => check(ctx, await ctx.nodes.get(params.name!)))
