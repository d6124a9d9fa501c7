// The engine as /api/health reports it: reachable, with its versions and its GET /info, or why not.
// Callers at the same moment share one round trip (a result is never kept once answered), and
// server.ts asks once at launch: the first health request, made while the service is still starting,
// takes that answer instead of beginning its own.
import type { Engine, EngineVersion } from "./client.ts"
import { HttpError } from "../http/http-error.ts"
import { Reused } from "./reused.ts"

export type EngineHealth =
  | { reachable: true; version: EngineVersion; spoken: string; info: Record<string, any> | null }
  | { reachable: false; error: string }

/** Never rejects: an engine that does not answer is `reachable: false` with why; /info alone failing leaves `info` null. */
export const engineHealth = (engine: Engine): Reused<EngineHealth> =>
  new Reused(async () => {
    const info = engine.info().catch(() => null)
    try {
      const [version, spoken] = await Promise.all([engine.version(), engine.apiVersion()])
      return { reachable: true, version, spoken, info: await info }
    } catch (err) {
      return { reachable: false, error: err instanceof HttpError ? err.message : String(err) }
    }
  }, 0)
