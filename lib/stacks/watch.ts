// The health watch of a compose stack (its orchestrator's, lib/stacks/compose-orchestrator.ts): owns
// the decision whether a stack's containers came up well after an update, deploy, apply or
// rollback. For a window every container of the stack must reach `healthy` where it
// has a healthcheck (the image's or the compose file's: the engine reports State.Health for both),
// and otherwise stay running without restarting or exiting. Everything is read from the engine by
// polling inspect (State, State.Health, RestartCount), never from events alone: an event missed
// during a reconnect cannot hide a restart. The verdict comes as soon as it is certain:
//   - a container `unhealthy`, exited (not restarting), or restarted more than `maxRestarts` times:
//     failure at once;
//   - every container has a healthcheck and is healthy: success at once;
//   - otherwise at the end of the window: containers without a healthcheck must still be running,
//     those with one must be healthy (still `starting` is a failure).
// Reasons name the service and what went wrong (`service web: unhealthy: <last healthcheck output>`,
// `service api: exited with code 1, 3 restarts`), with every secret of the stack replaced by ***.
import { SERVICE_LABEL, STACK_LABEL } from "../engine/containers.ts"
import type { Engine } from "../engine/client.ts"
import { redact } from "./env.ts"

export interface WatchOptions {
  /** Seconds to watch. */
  window: number
  /** Restarts a container may make during the window before the watch fails (default 2). */
  maxRestarts?: number
  /** Milliseconds between two readings (default 250). */
  pollMs?: number
  /** Values to hide from reasons (the stack's secrets). */
  secrets?: string[]
  /** Services not watched (those that were not running before the update: one-shot jobs). */
  ignore?: string[]
  /** When the change was made (ms); containers created since start with no restarts counted. */
  since?: number
  now?: () => number
  signal?: AbortSignal
}

export interface ContainerReading {
  service: string
  id: string
  status: string
  /** null: the container has no healthcheck. */
  health: string | null
  healthOutput: string
  restarts: number
  exitCode: number
}

export type WatchResult =
  | { ok: true; early: boolean; elapsed_ms: number; containers: ContainerReading[] }
  | { ok: false; service: string; reason: string; elapsed_ms: number; containers: ContainerReading[] }

const clip = (s: string, n = 300) => {
  const t = s.replace(/\s+/g, " ").trim()
  return t.length > n ? `${t.slice(0, n)}…` : t
}

/** One reading of every container of the project. */
export async function readStack(engine: Engine, project: string): Promise<ContainerReading[]> {
  const list = await engine.listContainers({ all: true, filters: { label: [`${STACK_LABEL}=${project}`] } })
  const read = await Promise.all(
    list.map(async (c) => {
      const i = (await engine.inspectContainer(c.Id).catch(() => undefined)) as any
      if (!i) return undefined
      const health = i.State?.Health as { Status?: string; Log?: { Output?: string }[] } | undefined
      return {
        service: c.Labels[SERVICE_LABEL] ?? "",
        id: c.Id,
        status: String(i.State?.Status ?? c.State),
        health: health?.Status ?? null,
        healthOutput: String(health?.Log?.at(-1)?.Output ?? ""),
        restarts: Number(i.RestartCount ?? 0),
        exitCode: Number(i.State?.ExitCode ?? 0),
        created: i.Created ? Date.parse(i.Created) : c.Created * 1000,
      }
    }),
  )
  return read.filter((r): r is ContainerReading & { created: number } => !!r)
}

/** The exit code of the container's last `die` since `since` (the engine's event log, asked for a closed range). */
async function dieCode(engine: Engine, id: string, since: number): Promise<number | undefined> {
  let code: number | undefined
  try {
    const until = Math.ceil(Date.now() / 1000)
    for await (const e of engine.events({
      since: Math.floor(since / 1000) - 1,
      until,
      filters: { container: [id], event: ["die"] },
    }))
      if (e.Actor?.Attributes?.exitCode !== undefined) code = Number(e.Actor.Attributes.exitCode)
  } catch {}
  return code
}

const restartsText = (n: number) => `${n} restart${n === 1 ? "" : "s"}`

/** Watches a stack until the verdict is certain or the window ends. */
export async function watchStack(engine: Engine, project: string, o: WatchOptions): Promise<WatchResult> {
  const now = o.now ?? Date.now
  const start = now()
  const since = o.since ?? start
  const end = start + o.window * 1000
  const maxRestarts = o.maxRestarts ?? 2
  const poll = o.pollMs ?? 250
  const ignore = new Set(o.ignore ?? [])
  const secrets = o.secrets ?? []
  /** Restart counts at first sight, for containers that existed before the change. */
  const baseline = new Map<string, number>()
  const say = (s: string) => redact(s, secrets)
  /** The last exit code seen while a container was not running (a restarted one reads 0 again on newer engines). */
  const lastExit = new Map<string, number>()
  const exitOf = async (r: ContainerReading) => {
    if (r.status !== "running" && r.exitCode !== 0) return r.exitCode
    return lastExit.get(r.id) ?? (await dieCode(engine, r.id, since)) ?? r.exitCode
  }
  let last: ContainerReading[] = []
  for (;;) {
    // Healthcheck output is redacted as read: folding and cutting it later could split a secret.
    const readings = (await readStack(engine, project))
      .filter((r) => !ignore.has(r.service))
      .map((r) => ({ ...r, healthOutput: say(r.healthOutput) })) as (ContainerReading & { created: number })[]
    last = readings.map(({ created: _, ...r }) => r)
    const elapsed_ms = now() - start
    for (const r of readings) {
      if (!baseline.has(r.id)) baseline.set(r.id, r.created >= since - 1000 ? 0 : r.restarts)
      if (r.status !== "running" && r.exitCode !== 0) lastExit.set(r.id, r.exitCode)
      const restarts = r.restarts - baseline.get(r.id)!
      const fail = (reason: string): WatchResult => ({
        ok: false,
        service: r.service,
        reason: say(`service ${r.service}: ${reason}`),
        elapsed_ms,
        containers: last,
      })
      if (r.health === "unhealthy") return fail(`unhealthy: ${clip(r.healthOutput) || "(no output)"}`)
      if (restarts > maxRestarts) return fail(`exited with code ${await exitOf(r)}, ${restartsText(restarts)}`)
      if (r.status === "exited" || r.status === "dead")
        return fail(`exited with code ${r.exitCode}, ${restartsText(restarts)}`)
    }
    if (readings.length && readings.every((r) => r.status === "running" && r.health === "healthy"))
      return { ok: true, early: now() < end, elapsed_ms, containers: last }
    if (now() >= end || o.signal?.aborted) {
      if (!readings.length)
        return { ok: false, service: "", reason: "no container of the stack is there", elapsed_ms, containers: last }
      const bad = readings.find((r) => r.status !== "running" || (r.health !== null && r.health !== "healthy"))
      if (!bad) return { ok: true, early: false, elapsed_ms, containers: last }
      const what =
        bad.status !== "running"
          ? `${bad.status} after ${o.window} s (exit code ${bad.exitCode}, ${restartsText(bad.restarts - baseline.get(bad.id)!)})`
          : `not healthy after ${o.window} s (${bad.health}): ${clip(bad.healthOutput) || "(no output)"}`
      return {
        ok: false,
        service: bad.service,
        reason: say(`service ${bad.service}: ${what}`),
        elapsed_ms,
        containers: last,
      }
    }
    await Bun.sleep(Math.min(poll, Math.max(0, end - now())))
  }
}
