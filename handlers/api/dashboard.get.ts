import { defineRoute } from "#lib/service/handler.ts"
import { overview } from "#lib/overview/overview.ts"
import { overviewSchema } from "#lib/overview/schemas.ts"

export default defineRoute({
  role: "viewer",
  detail: {
    operationId: "getDashboard",
    summary:
      "Is everything fine: stacks by health, failed updates, updates available, critical and high CVEs, nodes, swarm services below their replicas, overdue backups, the host's last hour; and the system summary (engine, its place in a swarm, containers by state, images, volumes, networks, disk use) with the full container list",
    tags: ["system"],
  },
  response: overviewSchema,
  handler: async ({ ctx, request }) => overview(ctx, ctx.auth.who(request)?.stacks ?? null),
})
