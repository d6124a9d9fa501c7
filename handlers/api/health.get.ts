import { sha, version } from "#lib/service/build-info.ts"
import { defineHandler } from "#lib/http/handler.ts"
import { HttpError } from "#lib/http/http-error.ts"

export const detail = { summary: "Service health, version, source revision and server identity", tags: ["system"] }

export default defineHandler(async ({ ctx }) => {
  const engine = await Promise.all([ctx.engine.version(), ctx.engine.apiVersion()]).then(
    ([v, spoken]) => ({ reachable: true, version: v.Version, api_version: v.ApiVersion, min_api_version: v.MinAPIVersion, client_api_version: spoken }),
    (err) => ({ reachable: false, error: err instanceof HttpError ? err.message : String(err) }),
  )
  return { status: engine.reachable ? "ok" : "degraded", version, sha, server_id: ctx.serverId, engine }
})
