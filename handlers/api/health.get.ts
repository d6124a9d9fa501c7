import * as v from "valibot"
import { sha, version } from "#lib/data/build-info.ts"
import { defineRoute } from "#lib/service/handler.ts"
import { swarmSchema } from "#lib/swarm/schemas.ts"
import { swarmState } from "#lib/swarm/state.ts"

export default defineRoute({
  role: "public",
  detail: {
    operationId: "getHealth",
    summary: "Service health, version, source revision and server identity",
    tags: ["system"],
  },
  response: v.object({
    status: v.picklist(["ok", "degraded"]),
    version: v.string(),
    sha: v.string(),
    server_id: v.string(),
    engine: v.union([
      v.object({
        reachable: v.literal(true),
        version: v.string(),
        api_version: v.string(),
        min_api_version: v.optional(v.string()),
        client_api_version: v.string(),
      }),
      v.object({ reachable: v.literal(false), error: v.string() }),
    ]),
    swarm: v.pipe(
      v.nullable(swarmSchema),
      v.description("the engine's place in a Docker Swarm, from its GET /info (null while the engine is unreachable)"),
    ),
    jobs: v.pipe(
      v.array(
        v.object({
          name: v.string(),
          state: v.picklist(["running", "done", "failed", "stopped"]),
          message: v.optional(v.string()),
        }),
      ),
      v.description(
        "the background jobs (engine events, scan queue, update checks...) in their start order: running, done (its work ended), or failed with its message",
      ),
    ),
  }),
  handler: async ({ ctx }) => {
    const e = await ctx.engineHealth.get()
    const engine = e.reachable
      ? {
          reachable: true,
          version: e.version.Version,
          api_version: e.version.ApiVersion,
          min_api_version: e.version.MinAPIVersion,
          client_api_version: e.spoken,
        }
      : { reachable: false, error: e.error }
    const swarm = e.reachable && e.info ? swarmState(e.info) : null
    return {
      status: e.reachable ? "ok" : "degraded",
      version,
      sha,
      server_id: ctx.serverId,
      engine,
      swarm,
      jobs: ctx.jobs.states(),
    }
  },
})
