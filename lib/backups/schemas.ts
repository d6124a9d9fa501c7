// The shapes of the backup routes' input and answers.
import * as v from "valibot"
import { planSchema } from "../copy/schemas.ts"
import { stackNameSchema } from "../stacks/name.ts"

const REPO_NAME = /^[a-z0-9][a-z0-9_.-]{0,62}$/

export const repoNameSchema = v.pipe(v.string(), v.regex(REPO_NAME, "a repository name is 1 to 63 of a-z, 0-9, _ . - and starts with a letter or digit"), v.description("the repository's name on this server"))

export const repoParams = v.object({ repo: repoNameSchema, stack: stackNameSchema })

export const repoView = v.object({
  name: v.string(),
  repository: v.pipe(v.string(), v.description("restic's repository string: a local path, sftp:, rest:, rclone:")),
  rclone_config: v.optional(v.string()),
})

export const repoInput = v.object({
  name: repoNameSchema,
  repository: v.pipe(v.string(), v.minLength(1), v.maxLength(2048), v.description("restic's repository string: a local path, sftp:user@host:/path, rest:http://host:port/, rclone:remote:path")),
  password: v.pipe(v.string(), v.minLength(1), v.maxLength(4096), v.description("the repository's password; never answered")),
  rclone_config: v.optional(v.pipe(v.string(), v.description("the rclone configuration file for an rclone: repository"))),
  init: v.optional(v.pipe(v.boolean(), v.description("create the repository first (restic init)"))),
})

export const backupSchema = v.object({
  run: v.string(),
  stack: v.string(),
  version: v.nullable(v.number()),
  time: v.string(),
  pieces: v.array(v.object({ path: v.string(), snapshot: v.string() })),
})

const counted = { bytes: v.pipe(v.number(), v.description("bytes read")), added: v.pipe(v.number(), v.description("bytes new to the repository after deduplication")) }
export const backupResultSchema = v.object({
  run: v.string(),
  stack: v.string(),
  version: v.nullable(v.number()),
  pieces: v.array(v.object({ path: v.string(), snapshot: v.string(), ...counted })),
  ...counted,
})

const flag = (description: string) => v.optional(v.pipe(v.boolean(), v.description(description)))
export const restoreInput = v.object({
  run: v.optional(v.pipe(v.string(), v.maxLength(64), v.description("the backup's run (default: the newest)"))),
  as: v.optional(v.pipe(stackNameSchema, v.description("the restored stack's name (default: the backed-up stack's)"))),
  force: flag("unpack into volumes that exist already"),
  allow_port_clash: flag("restore even if a port it publishes is in use here"),
  dry_run: flag("only plan, change nothing"),
})

export const restoreResultSchema = v.object({ plan: planSchema, restored: v.boolean() })
export const restoreBlockedSchema = v.object({ error: v.object({ code: v.string(), message: v.string() }), plan: planSchema })
