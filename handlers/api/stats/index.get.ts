import { defineRoute } from "#lib/service/handler.ts"
import { allStats, statsQuery } from "#lib/stats/views.ts"
import { allStatsSchema } from "#lib/stats/schemas.ts"

export default defineRoute({
  role: "viewer",
  detail: {
    operationId: "getStats",
    summary:
      "The latest stats of every running container (CPU %, memory, network and block I/O per second, PIDs), per-stack sums and the host's CPUs and memory; history=true adds each one's last hour (points=N averages it down)",
    tags: ["stats"],
  },
  query: statsQuery,
  response: allStatsSchema,
  handler: async ({ query, ctx }) => allStats(ctx, query),
})
