import { dashboard } from "#lib/engine/dashboard.ts"
import { defineHandler } from "#lib/service/handler.ts"
import { dashboardSchema } from "#lib/engine/schemas.ts"
import { redactorFor } from "#lib/stacks/env.ts"

export const detail = { operationId: "getDashboard", summary: "System summary (engine, containers by state, images, volumes, networks, disk use) and the full container list", tags: ["system"] }

export const response = dashboardSchema

export const role = "viewer"

export default defineHandler(async ({ ctx }) => dashboard(ctx.engine, ctx.diskUsage, ctx.engineVersion, redactorFor(ctx.stacks)))
