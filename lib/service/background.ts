// The service's background work, in the order server.ts starts it (lib/service/jobs.ts runs the list).
import type { Ctx } from "./context.ts"
import type { Job } from "./jobs.ts"
import { removeLeftoverThrowaways } from "../volumes/transfer.ts"
import { link } from "../cluster/link.ts"
import { linkTarget } from "../cluster/membership.ts"

export const background: Job<Ctx>[] = [
  {
    name: "stack migration", // synchronous: done before any other job starts
    start: (ctx) => {
      for (const name of ctx.stacks.migrate()) console.log(`stack ${name}: what the service keeps of it moved to its records`)
    },
  },
  { name: "engine events", start: (ctx, signal) => ctx.events.follow(ctx.engine, signal) },
  // Takes down a container whose bind reached outside its stack's paths.
  { name: "live mounts", start: (ctx, signal) => ctx.liveMounts.run(signal) },
  { name: "scan queue", start: (ctx) => ctx.scans.resume() },
  // No transfer of this service is under way yet: a throwaway container left is a killed process's.
  { name: "leftover throwaways", start: (ctx) => removeLeftoverThrowaways(ctx.engine) },
  { name: "image update checks", start: (ctx, signal) => ctx.imageUpdates.periodic(ctx.config.updateInterval, signal) },
  { name: "update policies", start: (ctx, signal) => ctx.policies.run(signal) },
  { name: "git schedules", start: (ctx, signal) => ctx.git.schedules(signal) },
  { name: "backup schedules", start: (ctx, signal) => ctx.backups.schedules(signal) },
  {
    name: "notifier",
    start: (ctx, signal) => ctx.notifier.follow(ctx.events, signal, async (id) => (await ctx.scans.results()).get(id)?.counts.critical ?? 0),
  },
  { name: "stats sampler", start: (ctx, signal) => ctx.stats.run(signal) },
  // A member that joined outbound holds its connection to the control plane.
  { name: "cluster link", start: (ctx, signal) => link.run(() => linkTarget(ctx), signal) },
  { name: "speech workers", start: () => {}, stop: (ctx) => ctx.tts.close() },
]
