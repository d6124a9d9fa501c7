// The shapes of the backup routes' input and answers.
import * as v from "valibot"
import { planSchema } from "../copy/schemas.ts"
import { stackNameSchema } from "../stacks/name.ts"
import { checkSchedule } from "../updates/records.ts"

const REPO_NAME = /^[a-z0-9][a-z0-9_.-]{0,62}$/

export const repoNameSchema = v.pipe(
  v.string(),
  v.regex(REPO_NAME, "a repository name is 1 to 63 of a-z, 0-9, _ . - and starts with a letter or digit"),
  v.description("the repository's name on this server"),
)

export const repoParams = v.object({ repo: repoNameSchema, stack: stackNameSchema })

const count = (what: string) =>
  v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(10_000), v.description(what)))
export const keepSchema = v.object({
  last: count("the last n backups"),
  hourly: count("the newest of each of so many hours"),
  daily: count("the newest of each of so many days"),
  weekly: count("the newest of each of so many weeks"),
  monthly: count("the newest of each of so many months"),
  yearly: count("the newest of each of so many years"),
})

const schedule = (what: string) =>
  v.optional(
    v.pipe(
      v.string(),
      v.maxLength(200),
      v.check((s) => {
        try {
          checkSchedule(s)
          return true
        } catch {
          return false
        }
      }, "a schedule is an interval (30m, 6h, 1d) or a cron expression"),
      v.description(what),
    ),
  )

export const hooksSchema = v.object({
  exec: v.optional(
    v.pipe(
      v.object({
        service: v.pipe(v.string(), v.minLength(1), v.maxLength(255)),
        command: v.pipe(v.array(v.pipe(v.string(), v.maxLength(4096))), v.minLength(1), v.maxLength(100)),
      }),
      v.description(
        "a command run in the service's running container before the snapshot (a database dump); it must exit 0",
      ),
    ),
  ),
  stop: v.optional(
    v.pipe(
      v.boolean(),
      v.description("stop the stack's running containers during the snapshot; they are started again whatever happens"),
    ),
  ),
})

const repoSettings = {
  rclone_config: v.optional(
    v.pipe(v.string(), v.maxLength(4096), v.description("the rclone configuration file for an rclone: repository")),
  ),
  schedule: schedule("when its stacks are backed up: an interval (6h, 1d) or a cron expression (0 3 * * *)"),
  stacks: v.optional(
    v.pipe(v.array(stackNameSchema), v.description("the stacks the schedule backs up (default: all)")),
  ),
  keep: v.optional(
    v.pipe(keepSchema, v.description("what a scheduled backup keeps of each stack's backups (restic forget --prune)")),
  ),
  hooks: v.optional(
    v.pipe(v.record(stackNameSchema, hooksSchema), v.description("each stack's hooks for its backups")),
  ),
  check: schedule("when restic check runs"),
  binds: v.optional(
    v.pipe(
      v.boolean(),
      v.description("scheduled backups also hold the data of the stacks' bind mounts under SVC_BIND_ROOTS"),
    ),
  ),
  state: v.optional(
    v.pipe(
      v.boolean(),
      v.description(
        "the schedule also backs up the service's own state (its data directory but the stacks' folders, secrets sealed)",
      ),
    ),
  ),
}

export const stateBackupSchema = v.object({
  snapshot: v.string(),
  time: v.string(),
  path: v.pipe(v.string(), v.description("the data directory it was taken from")),
  server: v.nullable(v.string()),
})

export const repoView = v.object({
  name: v.string(),
  repository: v.pipe(v.string(), v.description("restic's repository string: a local path, sftp:, rest:, rclone:")),
  ...repoSettings,
  last_check: v.nullable(v.object({ time: v.string(), ok: v.boolean(), message: v.string() })),
})

export const repoSettingsInput = v.object(repoSettings)

export const repoInput = v.object({
  name: repoNameSchema,
  repository: v.pipe(
    v.string(),
    v.minLength(1),
    v.maxLength(2048),
    v.description(
      "restic's repository string: a local path, sftp:user@host:/path, rest:http://host:port/, rclone:remote:path",
    ),
  ),
  password: v.pipe(
    v.string(),
    v.minLength(1),
    v.maxLength(4096),
    v.description("the repository's password; never answered"),
  ),
  ...repoSettings,
  init: v.optional(v.pipe(v.boolean(), v.description("create the repository first (restic init)"))),
})

export const backupSchema = v.object({
  run: v.string(),
  stack: v.string(),
  version: v.nullable(v.number()),
  time: v.string(),
  pieces: v.array(v.object({ path: v.string(), snapshot: v.string() })),
})

const counted = {
  bytes: v.pipe(v.number(), v.description("bytes read")),
  added: v.pipe(v.number(), v.description("bytes new to the repository after deduplication")),
}
export const backupResultSchema = v.object({
  run: v.string(),
  stack: v.string(),
  version: v.nullable(v.number()),
  pieces: v.array(v.object({ path: v.string(), snapshot: v.string(), ...counted })),
  ...counted,
  forgotten: v.pipe(v.number(), v.description("older snapshots forgotten and pruned by keep")),
})

export const backupMessageSchema = v.variant("type", [
  v.object({
    type: v.literal("progress"),
    piece: v.pipe(
      v.string(),
      v.description(
        "what restic reads: stack.json, volumes/<volume> (the volume's folder, when the engine is on this host) or volumes/<volume>.tar (its tar stream)",
      ),
    ),
    bytes_done: v.number(),
    total_bytes: v.pipe(
      v.nullable(v.number()),
      v.description("the piece's size measured before (a volume's files; its tar is a little larger)"),
    ),
    seconds_elapsed: v.number(),
  }),
  v.object({ type: v.literal("done"), result: backupResultSchema }),
  v.object({
    type: v.literal("failed"),
    error: v.object({ status: v.number(), code: v.string(), message: v.string() }),
  }),
])

export const runInput = v.object({
  keep: v.optional(
    v.pipe(keepSchema, v.description("after the backup, forget and prune the stack's older backups but these")),
  ),
  hooks: v.optional(
    v.pipe(hooksSchema, v.description("what runs around the snapshot (default: the repository's hooks for the stack)")),
  ),
  binds: v.optional(
    v.pipe(
      v.boolean(),
      v.description(
        "also back up the data of its bind mounts under SVC_BIND_ROOTS (default: the repository's binds setting)",
      ),
    ),
  ),
})

const flag = (description: string) => v.optional(v.pipe(v.boolean(), v.description(description)))
export const restoreInput = v.object({
  run: v.optional(v.pipe(v.string(), v.maxLength(64), v.description("the backup's run (default: the newest)"))),
  to: v.optional(
    v.pipe(
      v.string(),
      v.minLength(1),
      v.maxLength(63),
      v.description(
        "a node of the registry to restore on (default: this server); needs the cluster token, as a copy does",
      ),
    ),
  ),
  as: v.optional(v.pipe(stackNameSchema, v.description("the restored stack's name (default: the backed-up stack's)"))),
  force: flag("unpack into volumes that exist already, and restore bind paths that hold data (on this server only)"),
  binds: flag(
    "also restore the backup's bind mounts to their host paths, on this server (a path holding data only with force)",
  ),
  allow_port_clash: flag("restore even if a port it publishes is in use here"),
  dry_run: flag("only plan, change nothing"),
})

export const restoreResultSchema = v.object({ plan: planSchema, restored: v.boolean() })
export const restoreBlockedSchema = v.object({
  error: v.object({ code: v.string(), message: v.string() }),
  plan: planSchema,
})

export const stackStatusSchema = v.object({
  stack: v.string(),
  scheduled: v.pipe(v.boolean(), v.description("whether the repository's schedule backs it up")),
  last_backup: v.pipe(v.nullable(v.string()), v.description("when its newest backup of this server was made")),
  age_seconds: v.nullable(v.number()),
  due: v.pipe(v.nullable(v.string()), v.description("when its next scheduled backup after the newest was due")),
  overdue: v.pipe(
    v.boolean(),
    v.description("scheduled, and no backup within a grace after due (one period of the schedule, at most an hour)"),
  ),
  last_size: v.pipe(v.nullable(v.number()), v.description("bytes read by its last backup since the service started")),
})
