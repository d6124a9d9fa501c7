// The response schemas of copies between servers: a server's inventory, a stack's export, the
// copy plan and what an import wrote.
import * as v from "valibot"
import { envVarSchema, storedVersionSchema } from "../stacks/schemas.ts"

const publishedPort = v.object({ port: v.number(), protocol: v.string(), ip: v.string() })
const mount = v.object({ service: v.string(), target: v.string(), read_only: v.boolean() })
const bind = v.looseObject({
  service: v.string(),
  source: v.string(),
  target: v.string(),
  read_only: v.boolean(),
  data: v.boolean(),
})

export const inventorySchema = v.object({
  server_id: v.string(),
  stacks: v.array(v.string()),
  volumes: v.array(v.string()),
  ports: v.array(publishedPort),
  images: v.array(v.string()),
  containers: v.array(v.string()),
})

export const planSchema = v.object({
  source: v.string(),
  target: v.string(),
  same_server: v.boolean(),
  volumes: v.array(
    v.object({
      key: v.string(),
      source: v.string(),
      target: v.string(),
      external: v.boolean(),
      explicit_name: v.boolean(),
      exists_on_destination: v.boolean(),
      transfer: v.boolean(),
      mounts: v.array(mount),
    }),
  ),
  binds: v.array(bind),
  files: v.array(v.string()),
  images: v.array(v.object({ ref: v.string(), on_destination: v.boolean(), send: v.boolean() })),
  ports: v.array(publishedPort),
  warnings: v.array(v.string()),
  blockers: v.array(v.object({ code: v.string(), message: v.string() })),
  registries: v.optional(
    v.pipe(
      v.array(v.object({ name: v.string(), address: v.string(), send: v.boolean() })),
      v.description(
        "the kept registries the images need; send: their credentials go to the destination node (kept there as secrets), for its pulls at start and on later updates",
      ),
    ),
  ),
})

/** A copy's answer: the plan, whether it only planned, and whether the copy was started. */
export const copyResultSchema = v.object({ ...planSchema.entries, dry_run: v.boolean(), started: v.boolean() })

/** 409: the error envelope of a blocked copy, with the plan. */
export const copyBlockedSchema = v.object({
  error: v.object({ code: v.string(), message: v.string() }),
  plan: planSchema,
})

export const stackExportSchema = v.object({
  format: v.string(),
  name: v.string(),
  compose: v.string(),
  env: v.array(envVarSchema),
  files: v.record(v.string(), v.string()),
  versions: v.array(storedVersionSchema),
  current_version: v.nullable(v.number()),
  images: v.array(v.string()),
  dir: v.string(),
  mounts: v.object({
    volumes: v.array(
      v.object({
        key: v.nullable(v.string()),
        name: v.nullable(v.string()),
        external: v.boolean(),
        explicit_name: v.boolean(),
        anonymous: v.boolean(),
        mounts: v.array(mount),
        size: v.optional(v.nullable(v.number())),
      }),
    ),
    binds: v.array(bind),
  }),
  ports: v.array(publishedPort),
  built: v.array(v.string()),
  container_names: v.array(v.string()),
})

export const importedStackSchema = v.object({
  name: v.string(),
  current_version: v.nullable(v.number()),
  versions: v.array(v.number()),
  env_pending: v.boolean(),
})
