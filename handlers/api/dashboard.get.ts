import { dashboard } from "#lib/engine/dashboard.ts"
import { defineHandler } from "#lib/http/handler.ts"

export const detail = { summary: "System summary (engine, containers by state, images, volumes, networks, disk use) and the full container list", tags: ["system"] }

export default defineHandler(async ({ ctx }) => dashboard(ctx.engine, ctx.diskUsage, ctx.engineVersion))
