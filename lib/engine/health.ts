// The engine as /api/health reports it: reachable, with its versions and its GET /info, or why not.
// Callers at the same moment share one round trip (a result is never kept once answered), and
// server.ts asks once at launch: the first health request, made while the service is still starting,
// takes that answer instead of beginning its own. An engine that does not answer within the
// deadline (a hung daemon) is reported as such, and the requests made to it are given up.
import type { Engine, EngineVersion } from "./client.ts"
import { isDomainError } from "../errors/errors.ts"
import { Reused } from "./reused.ts"

export type EngineHealth =
  | { reachable: true; version: EngineVersion; spoken: string; info: Record<string, any> | null }
  | { reachable: false; error: string }

/** How long health waits for the engine's answers. */
export const HEALTH_DEADLINE_MS = 5000

/** `work`, or the signal's abort when that comes first. */
const within = <T>(work: Promise<T>, signal: AbortSignal): Promise<T> =>
  Promise.race([
    work,
    new Promise<never>((_, reject) => signal.addEventListener("abort", () => reject(signal.reason), { once: true })),
  ])

/** Never rejects: an engine that does not answer, or not in time, is `reachable: false` with why; /info alone failing leaves `info` null. */
export const engineHealth = (engine: Engine, deadlineMs = HEALTH_DEADLINE_MS): Reused<EngineHealth> =>
  new Reused(async () => {
    const signal = AbortSignal.timeout(deadlineMs)
    const info = within(engine.info(signal), signal).catch(() => null)
    try {
      const [version, spoken] = await within(Promise.all([engine.version(signal), engine.apiVersion()]), signal)
      return { reachable: true, version, spoken, info: await info }
    } catch (err) {
      if (signal.aborted)
        return {
          reachable: false,
          error: `the Docker engine at ${engine.host} did not answer GET /version within ${deadlineMs / 1000} s`,
        }
      return { reachable: false, error: isDomainError(err) ? err.message : String(err) }
    }
  }, 0)
