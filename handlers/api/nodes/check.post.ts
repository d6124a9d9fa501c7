import { defineHandler } from "#lib/http/handler.ts"
import { check } from "#lib/cluster/probe.ts"

export const detail = { summary: "Probe every node in parallel, each within the probe deadline; returns all", tags: ["nodes"] }

export default defineHandler(async ({ ctx }) => Promise.all((await ctx.nodes.list()).map((node) => check(ctx, node))))
