// The service's background work, in the order server.ts starts it (lib/service/jobs.ts runs the list),
// right after the server listens. A job loads its room by its first use, and waits for the first
// thing it works on before it does: the first stack's records, backup repository, queued scan or
// cluster membership, the first interval of the update checks, a notification target. An idle
// service with none of them holds only the engine's event stream and the stats sampler.
import { existsSync } from "node:fs"
import { join } from "node:path"
import { setTimeout as pause } from "node:timers/promises"
import { made, type Ctx } from "./context.ts"
import type { Job } from "./jobs.ts"
import { stackDirs } from "../stacks/name.ts"
import { clusterFile } from "../cluster/bearer.ts"
import { INTENTS_DIR } from "../data/intents.ts"

/** Resolves true once `path` exists (looked at every second), false when the signal aborts first. */
async function until(path: string, signal: AbortSignal): Promise<boolean> {
  while (!signal.aborted) {
    if (existsSync(path)) return true
    await pause(1000, undefined, { signal }).catch(() => {})
  }
  return false
}

/** Resolves true after `ms`, false when the signal aborts first. */
const after = (ms: number, signal: AbortSignal): Promise<boolean> => pause(ms, true, { signal }).catch(() => false)

/** Where the scan queue keeps its pending jobs (lib/images/scan-queue.ts): a queue never used has none to resume. */
const scansDir = (dataDir: string) => join(dataDir, "scans")

export const background: Job<Ctx>[] = [
  {
    name: "stack migration", // synchronous: done before any other job starts
    start: (ctx) => {
      if (!existsSync(stackDirs(ctx.config.dataDir).folders)) return
      for (const name of ctx.stacks.migrate())
        console.log(`stack ${name}: what the service keeps of it moved to its records`)
    },
  },
  // Operations a killed process left midway (lib/data/intents.ts): finished or undone, each under its stack's lock.
  {
    name: "recovery",
    start: async (ctx, signal) =>
      existsSync(join(ctx.config.dataDir, INTENTS_DIR)) && (await import("./recovery.ts")).recoverLeft(ctx, signal),
  },
  { name: "engine events", start: (ctx, signal) => ctx.events.follow(ctx.engine, signal) },
  // Takes down a container whose bind reached outside its stack's paths; it begins by checking the
  // running ones, so a container started while it waited is checked too.
  {
    name: "live mounts",
    start: async (ctx, signal) =>
      (await until(stackDirs(ctx.config.dataDir).records, signal)) && ctx.liveMounts.run(signal),
  },
  // A scan asked for later starts the queue itself.
  { name: "scan queue", start: (ctx) => existsSync(scansDir(ctx.config.dataDir)) && ctx.scans.resume() },
  // No transfer of this service is under way yet: a throwaway container left is a killed process's.
  {
    name: "leftover throwaways",
    start: async (ctx) => (await import("../volumes/transfer.ts")).removeLeftoverThrowaways(ctx.engine),
  },
  // Every SVC_UPDATE_INTERVAL seconds (0: never), each tag of every image that came from a registry.
  {
    name: "image update checks",
    start: async (ctx, signal) => {
      const every = ctx.config.updateInterval * 1000
      while (every > 0 && (await after(every, signal))) await ctx.imageUpdates.checkPulled()
    },
  },
  {
    name: "update policies",
    start: async (ctx, signal) =>
      (await until(stackDirs(ctx.config.dataDir).records, signal)) && ctx.policies.run(signal),
  },
  {
    name: "git schedules",
    start: async (ctx, signal) =>
      (await until(stackDirs(ctx.config.dataDir).records, signal)) && ctx.git.schedules(signal),
  },
  // A schedule belongs to a backup repository, kept under <data>/backups.
  {
    name: "backup schedules",
    start: async (ctx, signal) =>
      (await until(join(ctx.config.dataDir, "backups"), signal)) && ctx.backups.schedules(signal),
  },
  // From the first source an admin kept (<data>/catalog/sources.json): each read on its schedule.
  {
    name: "catalog sources",
    start: async (ctx, signal) =>
      (await until(join(ctx.config.dataDir, "catalog", "sources.json"), signal)) && ctx.catalog.schedules(signal),
  },
  {
    name: "notifier",
    start: (ctx, signal) =>
      ctx.config.notifyUrls.length > 0 &&
      ctx.notifier.follow(ctx.events, signal, async (id) => (await ctx.scans.results()).get(id)?.counts.critical ?? 0),
  },
  // From the first channel or rule on (<data>/alerts): the rules' watch, and delivery with what a
  // stopped process left pending. The events that already notify reach the rules through the
  // notifier, whose translation of the bus runs here when SVC_NOTIFY_URLS names no address.
  {
    name: "alerts",
    start: async (ctx, signal) => {
      if (!(await until(join(ctx.config.dataDir, "alerts"), signal))) return
      const [{ alertSources }] = await Promise.all([import("./alert-sources.ts")])
      ctx.notifier.tap((n) => ctx.alerts.notification(n))
      const critical = async (id: string) => (await ctx.scans.results()).get(id)?.counts.critical ?? 0
      await Promise.all([
        ctx.alerts.run(alertSources(ctx), signal),
        ctx.config.notifyUrls.length === 0 && ctx.notifier.follow(ctx.events, signal, critical),
      ])
    },
    stop: (ctx) => made(ctx, "alerts") && ctx.alerts.stop(),
  },
  { name: "stats sampler", start: (ctx, signal) => ctx.stats.run(signal) },
  // A member that joined outbound holds its connection to the control plane (from its first membership on).
  {
    name: "cluster link",
    start: async (ctx, signal) => {
      if (!(await until(clusterFile(ctx.config.dataDir), signal))) return
      const [{ link }, { linkTarget }] = await Promise.all([
        import("../cluster/link.ts"),
        import("../cluster/membership.ts"),
      ])
      return link.run(() => linkTarget(ctx), signal)
    },
  },
  // When each API token and session was last used is written once a minute, and at the stop.
  { name: "sign-in's use times", start: () => {}, stop: (ctx) => ctx.auth.enabled && ctx.auth.flush() },
  // Speech is loaded by the first synthesis: a service that never spoke has no workers to stop.
  { name: "speech workers", start: () => {}, stop: (ctx) => made(ctx, "tts") && ctx.tts.close() },
]
