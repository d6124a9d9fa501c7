import { defineHandler } from "#lib/http/handler.ts"
import { stackViews } from "#lib/stacks/state.ts"

export const detail = { summary: "Every stack with its state, services and containers; compose projects made elsewhere are listed with managed: false", tags: ["stacks"] }

export default defineHandler(async ({ ctx }) => stackViews(ctx.stacks, await ctx.engine.listContainers({ all: true })))
