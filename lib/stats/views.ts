// Owns what the stats routes answer: the latest round with or without history, one container's
// and one stack's view, and their SSE streams (per container, per stack), all read from the sampler.
import * as v from "valibot"
import { flagFor } from "../http/query.ts"
import type { ContainerInspect } from "../engine/client.ts"
import { SERVICE_LABEL, STACK_LABEL } from "../engine/containers.ts"
import {
  emptyStack,
  stackSums,
  type ContainerStats,
  type History,
  type HostStats,
  type Round,
  type StackStats,
  type StatsSampler,
} from "./sampler.ts"

/** The query of the stats routes: `history=true` adds the last hour; `points=N` averages it down to at most N points (a sparkline). */
export const statsQuery = v.object({
  history: v.optional(flagFor("add the last hour, as columns (time, cpu_percent, memory_bytes, …)")),
  points: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d{1,5}$/, "must be a whole number"),
      v.description("with history: average it down to at most this many points (e.g. 60)"),
      v.transform(Number),
      v.minValue(1, "must be at least 1"),
    ),
  ),
})
export type HistoryQuery = v.InferOutput<typeof statsQuery>

/** What the views read: the one sampler. */
type Sampled = { stats: StatsSampler }

/** GET /api/stats: the latest round; with history, each container's and stack's last hour beside it. */
export async function allStats(ctx: Sampled, q: HistoryQuery) {
  const r = await ctx.stats.fresh()
  const withHistory = q.history && ctx.stats.keepsHistory
  return {
    ...r,
    history: ctx.stats.keepsHistory,
    containers: r.containers.map((c) =>
      withHistory ? { ...c, history: ctx.stats.historyOf("container", c.id, q.points) } : c,
    ),
    stacks: r.stacks.map((s) => (withHistory ? { ...s, history: ctx.stats.historyOf("stack", s.name, q.points) } : s)),
  }
}

export interface ContainerView {
  id: string
  name: string
  stack: string | null
  service: string | null
  running: boolean
  time: string | null
  interval: number
  host: HostStats
  /** The latest sample, null while the container is not running (or before its first round). */
  latest: ContainerStats | null
  history?: History
}

/** GET /api/containers/{id}/stats: `info` is the container's inspect (it names the container and 404s an unknown one). */
export async function containerView(ctx: Sampled, info: ContainerInspect, q: HistoryQuery): Promise<ContainerView> {
  const running = info.State.Running
  const r = running ? await ctx.stats.fresh() : ctx.stats.latest()
  return {
    id: info.Id,
    name: info.Name.replace(/^\//, ""),
    stack: info.Config.Labels?.[STACK_LABEL] ?? null,
    service: info.Config.Labels?.[SERVICE_LABEL] ?? null,
    running,
    time: r.time,
    interval: r.interval,
    host: r.host,
    latest: r.containers.find((c) => c.id === info.Id) ?? null,
    ...(q.history ? { history: ctx.stats.historyOf("container", info.Id, q.points) } : {}),
  }
}

export interface StackView {
  name: string
  time: string | null
  interval: number
  host: HostStats
  /** Sums over the stack's running containers (zeros when none runs). */
  sum: StackStats
  containers: ContainerStats[]
  history?: History
  /** With history: each running container's, by id. */
  container_history?: Record<string, History>
}

export function stackOf(r: Round, name: string): Omit<StackView, "history" | "container_history"> {
  const containers = r.containers.filter((c) => c.stack === name)
  return {
    name,
    time: r.time,
    interval: r.interval,
    host: r.host,
    sum: stackSums(containers)[0] ?? emptyStack(name),
    containers,
  }
}

/** GET /api/stacks/{name}/stats (the stack is known to exist). With history: the stack's sums and each running container's. */
export async function stackView(ctx: Sampled, name: string, q: HistoryQuery): Promise<StackView> {
  const view = stackOf(await ctx.stats.fresh(), name)
  if (!q.history) return view
  const containers = Object.fromEntries(
    view.containers.map((c) => [c.id, ctx.stats.historyOf("container", c.id, q.points)]),
  )
  return { ...view, history: ctx.stats.historyOf("stack", name, q.points), container_history: containers }
}

/** A container's samples, one per round; when it stops, one `{id, time, running: false}` and then silence until it runs again. */
export async function* containerStream(
  sampler: StatsSampler,
  id: string,
  signal: AbortSignal,
): AsyncGenerator<ContainerStats | { id: string; time: string | null; running: false }> {
  let present = true
  for await (const r of sampler.subscribe(signal)) {
    const c = r.containers.find((x) => x.id === id)
    if (c) yield c
    else if (present) yield { id, time: r.time, running: false }
    present = !!c
  }
}

/** A stack's sums and containers, one message per round. */
export async function* stackStream(
  sampler: StatsSampler,
  name: string,
  signal: AbortSignal,
): AsyncGenerator<Omit<StackView, "history" | "container_history">> {
  for await (const r of sampler.subscribe(signal)) {
    yield stackOf(r, name)
  }
}
