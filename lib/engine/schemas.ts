// The response schemas of the engine's objects as the API answers them: containers, images,
// volumes, networks, log lines, prune results, the dashboard, events and the shell's resize message.
import * as v from "valibot"

const labels = v.record(v.string(), v.string())
const nullableString = v.nullable(v.string())

export const portSchema = v.object({
  ip: v.optional(v.string()),
  private_port: v.number(),
  public_port: v.optional(v.number()),
  type: v.string(),
})

export const containerSchema = v.object({
  id: v.string(),
  name: v.string(),
  image: v.string(),
  image_id: v.string(),
  state: v.string(),
  status: v.string(),
  created: v.string(),
  ports: v.array(portSchema),
  labels,
  stack: nullableString,
  service: nullableString,
})
export type Container = v.InferOutput<typeof containerSchema>

export const containerDetailSchema = v.object({
  ...containerSchema.entries,
  command: v.array(v.string()),
  tty: v.boolean(),
  started_at: nullableString,
  exit_code: v.number(),
  mounts: v.array(
    v.object({ type: v.string(), name: nullableString, source: v.string(), destination: v.string(), rw: v.boolean() }),
  ),
  networks: v.array(v.string()),
})

export const imageSchema = v.object({
  id: v.string(),
  tags: v.array(v.string()),
  digests: v.array(v.string()),
  created: v.string(),
  size: v.number(),
  dangling: v.boolean(),
  labels,
})

export const volumeSchema = v.object({
  name: v.string(),
  driver: v.string(),
  mountpoint: v.string(),
  created: nullableString,
  scope: nullableString,
  labels,
  stack: nullableString,
})

export const networkSchema = v.object({
  id: v.string(),
  name: v.string(),
  driver: v.string(),
  scope: v.string(),
  created: v.string(),
  internal: v.boolean(),
  labels,
  stack: nullableString,
})

export const logLineSchema = v.object({
  service: v.string(),
  container: v.string(),
  stream: v.string(),
  ts: v.string(),
  line: v.string(),
})

export const pruneSchema = v.object({
  kind: v.string(),
  removed: v.array(v.string()),
  untagged: v.array(v.string()),
  space_reclaimed: v.number(),
})

export const dashboardSchema = v.object({
  engine: v.object({
    version: v.string(),
    api_version: v.string(),
    os: v.string(),
    arch: v.string(),
    kernel: nullableString,
  }),
  container_states: v.record(v.string(), v.number()),
  images: v.object({ count: v.number(), size: v.number() }),
  volumes: v.object({ count: v.number() }),
  networks: v.object({ count: v.number() }),
  disk: v.object({
    images: v.number(),
    containers: v.number(),
    volumes: v.number(),
    build_cache: v.number(),
    total: v.number(),
  }),
  containers: v.array(containerSchema),
})
export type DashboardAnswer = v.InferOutput<typeof dashboardSchema>

export const eventSchema = v.object({
  seq: v.number(),
  time: v.string(),
  source: v.picklist(["engine", "service"]),
  type: v.string(),
  action: v.string(),
  id: v.optional(v.string()),
  name: v.optional(v.string()),
  attributes: v.optional(labels),
  message: v.optional(v.string()),
  level: v.optional(v.picklist(["info", "error"])),
})
export type EngineEvent = v.InferOutput<typeof eventSchema>

/** The text frame that resizes the shell's terminal. */
export const shellResizeSchema = v.object({
  type: v.literal("resize"),
  cols: v.pipe(v.number(), v.integer(), v.minValue(1)),
  rows: v.pipe(v.number(), v.integer(), v.minValue(1)),
})

/** A container (or image) as the engine names it: an id, a unique prefix of one, or a name. */
export const engineRef = v.pipe(v.string(), v.minLength(1), v.description("an id, a unique prefix of one, or a name"))
export const removed = (key: string) => v.object({ [key]: v.string(), removed: v.literal(true) })
