// The health watch of a swarm stack, the swarm's counterpart of lib/updates/watch.ts: for a window,
// read from the manager, every task of the stack's services on every node must keep running. A task
// of theirs that fails or is rejected, or one made anew during the window (the swarm replaced a task
// that stopped: a restart), or a service with fewer running tasks than it wants at the end, fails the
// watch at once, with the service and the task's error (every secret of the stack replaced by ***).
// Images of a swarm stack are what its services' specs name (`repo:tag@sha256:...`).
import type { Engine } from "../engine/client.ts"
import type { SwarmService } from "../engine/swarm.ts"
import { redact } from "../stacks/env.ts"
import { SWARM_STACK_LABEL } from "../stacks/swarm.ts"
import type { ImageChange } from "./records.ts"
import type { WatchResult } from "./watch.ts"

export type SwarmWatchEngine = Pick<Engine, "listServices" | "listTasks">

export interface SwarmWatchOptions {
  /** Seconds to watch. */
  window: number
  /** Milliseconds between two readings (default 250). */
  pollMs?: number
  secrets?: string[]
  now?: () => number
}

const shortName = (stack: string, s: SwarmService) =>
  s.Spec.Name.startsWith(`${stack}_`) ? s.Spec.Name.slice(stack.length + 1) : s.Spec.Name

/** The stack's services by the CLI's label. */
export const stackServices = (engine: Pick<Engine, "listServices">, stack: string) =>
  engine.listServices({ label: [`${SWARM_STACK_LABEL}=${stack}`] })

/** Watches a swarm stack's tasks until one fails or the window ends. */
export async function watchSwarmStack(
  engine: SwarmWatchEngine,
  stack: string,
  o: SwarmWatchOptions,
): Promise<WatchResult> {
  const now = o.now ?? Date.now
  const start = now()
  const end = start + o.window * 1000
  const say = (s: string) => redact(s, o.secrets ?? [])
  for (;;) {
    const services = await stackServices(engine, stack)
    const tasks = services.length ? await engine.listTasks({ service: services.map((s) => s.ID) }) : []
    const elapsed_ms = now() - start
    const fail = (service: string, reason: string): WatchResult => ({
      ok: false,
      service,
      reason: say(`service ${service}: ${reason}`),
      elapsed_ms,
      containers: [],
    })
    for (const s of services) {
      const mine = tasks.filter((t) => t.ServiceID === s.ID)
      const bad = mine.find(
        (t) =>
          (t.Status.State === "failed" || t.Status.State === "rejected") &&
          Date.parse(t.UpdatedAt ?? t.CreatedAt) >= start,
      )
      if (bad)
        return fail(
          shortName(stack, s),
          `task ${bad.ID.slice(0, 12)} ${bad.Status.State}: ${bad.Status.Err || bad.Status.Message || "no message"}`,
        )
      const again = mine.find((t) => Date.parse(t.CreatedAt) > start)
      if (again)
        return fail(
          shortName(stack, s),
          `task ${again.ID.slice(0, 12)} was made anew in slot ${again.Slot ?? "?"} during the watch (a task stopped)`,
        )
    }
    if (now() >= end) {
      if (!services.length)
        return { ok: false, service: "", reason: "no service of the stack is there", elapsed_ms, containers: [] }
      for (const s of services) {
        const running = tasks.filter(
          (t) => t.ServiceID === s.ID && t.DesiredState === "running" && t.Status.State === "running",
        ).length
        const wanted = s.ServiceStatus?.DesiredTasks ?? running
        if (running < wanted)
          return fail(shortName(stack, s), `${running} of ${wanted} tasks running after ${o.window} s`)
      }
      return { ok: true, early: false, elapsed_ms, containers: [] }
    }
    await Bun.sleep(Math.min(o.pollMs ?? 250, Math.max(0, end - now())))
  }
}

/** Each service's image as its spec names it. */
export async function serviceImages(engine: Pick<Engine, "listServices">, stack: string): Promise<Map<string, string>> {
  return new Map(
    (await stackServices(engine, stack)).map((s) => [
      shortName(stack, s),
      s.Spec.TaskTemplate.ContainerSpec?.Image ?? "",
    ]),
  )
}

/** What moved between two readings of the services' images (`ref` without its digest). */
export function imageChanges(before: Map<string, string>, after: Map<string, string>): ImageChange[] {
  return [...before].map(([service, from]) => {
    const now = after.get(service)
    const to = now && now !== from ? now : null
    return { service, ref: from.split("@")[0]!, from, from_id: from, to, to_id: to }
  })
}
