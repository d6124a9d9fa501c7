import * as v from "valibot"
import { sha, version } from "#lib/data/build-info.ts"
import { defineHandler } from "#lib/service/handler.ts"
import { HttpError } from "#lib/http/http-error.ts"
import { swarmSchema } from "#lib/swarm/schemas.ts"
import { swarmState } from "#lib/swarm/state.ts"

export const detail = { operationId: "getHealth", summary: "Service health, version, source revision and server identity", tags: ["system"] }

export const response = v.object({
  status: v.picklist(["ok", "degraded"]),
  version: v.string(),
  sha: v.string(),
  server_id: v.string(),
  engine: v.union([
    v.object({ reachable: v.literal(true), version: v.string(), api_version: v.string(), min_api_version: v.optional(v.string()), client_api_version: v.string() }),
    v.object({ reachable: v.literal(false), error: v.string() }),
  ]),
  swarm: v.pipe(v.nullable(swarmSchema), v.description("the engine's place in a Docker Swarm, from its GET /info (null while the engine is unreachable)")),
  jobs: v.pipe(
    v.array(v.object({ name: v.string(), state: v.picklist(["running", "done", "failed", "stopped"]), message: v.optional(v.string()) })),
    v.description("the background jobs (engine events, scan queue, update checks...) in their start order: running, done (its work ended), or failed with its message"),
  ),
})

export const role = "public"

export default defineHandler(async ({ ctx }) => {
  const [engine, swarm] = await Promise.all([
    Promise.all([ctx.engine.version(), ctx.engine.apiVersion()]).then(
      ([v, spoken]) => ({ reachable: true, version: v.Version, api_version: v.ApiVersion, min_api_version: v.MinAPIVersion, client_api_version: spoken }),
      (err) => ({ reachable: false, error: err instanceof HttpError ? err.message : String(err) }),
    ),
    ctx.engine.info().then(swarmState, () => null),
  ])
  return { status: engine.reachable ? "ok" : "degraded", version, sha, server_id: ctx.serverId, engine, swarm, jobs: ctx.jobs.states() }
})
