import * as v from "valibot"
import { dashboard } from "#lib/engine/dashboard.ts"
import { defineHandler } from "#lib/service/handler.ts"
import { dashboardSchema } from "#lib/engine/schemas.ts"
import { redactorFor } from "#lib/stacks/env.ts"
import { swarmSchema } from "#lib/swarm/schemas.ts"
import { readSwarm } from "#lib/swarm/state.ts"

export const detail = {
  operationId: "getDashboard",
  summary: "System summary (engine, its place in a swarm, containers by state, images, volumes, networks, disk use) and the full container list",
  tags: ["system"],
}

export const response = v.object({ ...dashboardSchema.entries, swarm: swarmSchema })

export const role = "viewer"

export default defineHandler(async ({ ctx }) => {
  const [summary, swarm] = await Promise.all([dashboard(ctx.engine, ctx.diskUsage, ctx.engineVersion, redactorFor(ctx.stacks)), readSwarm(ctx.engine)])
  return { ...summary, swarm }
})
