import { defineHandler } from "#lib/service/handler.ts"
import { allStats, statsQuery, type HistoryQuery } from "#lib/stats/views.ts"
import { allStatsSchema } from "#lib/stats/schemas.ts"

export const query = statsQuery
export const detail = {
  operationId: "getStats",
  summary:
    "The latest stats of every running container (CPU %, memory, network and block I/O per second, PIDs), per-stack sums and the host's CPUs and memory; history=true adds each one's last hour (points=N averages it down)",
  tags: ["stats"],
}

export const response = allStatsSchema

export const role = "viewer"

export default defineHandler<unknown, HistoryQuery>(async ({ query, ctx }) => allStats(ctx, query))
