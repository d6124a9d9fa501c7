import { defineHandler } from "../../../lib/handler.ts"
import { stackViews } from "../../../lib/stack-state.ts"

export const detail = { summary: "Every stack with its state, services and containers; compose projects made elsewhere are listed with managed: false", tags: ["stacks"] }

export default defineHandler(async ({ ctx }) => stackViews(ctx.stacks, await ctx.engine.listContainers({ all: true })))
