// The response schema of GET /api/dashboard: the engine's summary, the swarm, and `health`, what
// needs attention.
import * as v from "valibot"
import { dashboardSchema } from "../engine/schemas.ts"
import { swarmSchema } from "../swarm/schemas.ts"

const nullableString = v.nullable(v.string())
const nullableNumber = v.nullable(v.number())
const series = (what: string) => v.pipe(v.array(nullableNumber), v.description(what))

export const stackHealthSchema = v.object({
  name: v.string(),
  managed: v.pipe(
    v.boolean(),
    v.description("the stack's files are kept here (false: a compose project made elsewhere)"),
  ),
  orchestrator: v.picklist(["compose", "swarm"]),
  health: v.pipe(
    v.picklist(["running", "degraded", "stopped"]),
    v.description(
      "stopped: nothing of it runs; degraded: some of it runs, it is paused, a container is unhealthy or restarting, or a swarm service is below its replicas",
    ),
  ),
  reason: v.pipe(nullableString, v.description("why it is not simply running")),
  failed_update: v.pipe(
    v.nullable(
      v.object({
        verdict: v.picklist(["rolled_back", "rollback_failed"]),
        reason: nullableString,
        finished_at: v.string(),
      }),
    ),
    v.description("its last guarded update, when that failed"),
  ),
})

export const healthSchema = v.object({
  ok: v.pipe(
    v.boolean(),
    v.description(
      "nothing needs attention: no stack degraded or with a failed update, no critical or high CVE, every node online, every swarm service at its replicas, no backup overdue, no part failed",
    ),
  ),
  stacks: v.object({
    counts: v.object({ running: v.number(), degraded: v.number(), stopped: v.number(), failed_update: v.number() }),
    items: v.pipe(
      v.array(stackHealthSchema),
      v.description("every stack: failed updates first, then degraded, stopped, running, by name"),
    ),
  }),
  updates: v.pipe(
    v.array(v.object({ ref: v.string(), image: v.string(), stacks: v.array(v.string()), checked_at: v.string() })),
    v.description(
      "image references whose registry serves a newer image than the local one, with the stacks running them",
    ),
  ),
  cves: v.pipe(
    v.array(
      v.object({
        image: v.string(),
        ref: v.string(),
        critical: v.number(),
        high: v.number(),
        scanned_at: v.string(),
        stacks: v.array(v.string()),
      }),
    ),
    v.description("local images whose latest scan found critical or high vulnerabilities, most critical first"),
  ),
  nodes: v.object({
    total: v.number(),
    online: v.number(),
    items: v.array(
      v.object({ name: v.string(), status: v.string(), error: nullableString, checked_at: nullableString }),
    ),
  }),
  swarm: v.object({
    manager: v.pipe(v.boolean(), v.description("this engine manages a swarm (its services are read)")),
    services: v.number(),
    below: v.pipe(
      v.array(
        v.object({ id: v.string(), name: v.string(), stack: nullableString, desired: v.number(), running: v.number() }),
      ),
      v.description("replicated and global services running fewer tasks than they want"),
    ),
  }),
  backups: v.object({
    overdue: v.array(
      v.object({
        repository: v.string(),
        stack: v.string(),
        schedule: v.string(),
        last_success: nullableString,
        due: v.string(),
        failures: v.number(),
      }),
    ),
  }),
  host: v.object({
    cpus: nullableNumber,
    memory_bytes: v.pipe(nullableNumber, v.description("the host's memory")),
    time: v.pipe(nullableString, v.description("the stats sampler's latest round")),
    cpu_percent: v.pipe(
      nullableNumber,
      v.description("what the running containers use of all the host's cores (0-100), in the latest round"),
    ),
    used_memory_bytes: v.pipe(nullableNumber, v.description("the running containers' memory in the latest round")),
    disk: v.pipe(
      v.nullable(v.object({ path: v.string(), total_bytes: v.number(), used_bytes: v.number() })),
      v.description("the filesystem of the data directory"),
    ),
    history: v.pipe(
      v.object({
        interval: v.number(),
        time: v.array(v.number()),
        cpu_percent: series("the containers' share of all cores"),
        memory_bytes: series("the containers' memory"),
        disk_used_bytes: series("disk space used on the data directory's filesystem"),
      }),
      v.description("the last hour, at most 60 points, oldest first (empty while the sampler keeps no history)"),
    ),
  }),
  errors: v.pipe(
    v.array(v.object({ part: v.string(), message: v.string() })),
    v.description("the parts that could not be read, each with its error"),
  ),
})
export type Health = v.InferOutput<typeof healthSchema>

export const overviewSchema = v.object({ ...dashboardSchema.entries, swarm: swarmSchema, health: healthSchema })
export type Overview = v.InferOutput<typeof overviewSchema>
