// The response schemas of the stats routes: one container's sample, a stack's sums, the host, a
// whole round, and the history columns (time plus one column per series, null where not running).
import * as v from "valibot"

const nullableNumber = v.nullable(v.number())
const nullableString = v.nullable(v.string())

export const containerStatsSchema = v.object({
  id: v.string(),
  name: v.string(),
  stack: nullableString,
  service: nullableString,
  time: v.string(),
  cpu_percent: nullableNumber,
  cpu_host_percent: nullableNumber,
  cpu_limit_percent: nullableNumber,
  cpu_limit_cores: nullableNumber,
  memory_bytes: v.number(),
  memory_limit_bytes: v.number(),
  memory_percent: v.number(),
  net_rx_bytes_per_s: nullableNumber,
  net_tx_bytes_per_s: nullableNumber,
  block_read_bytes_per_s: nullableNumber,
  block_write_bytes_per_s: nullableNumber,
  pids: v.number(),
})

export const stackStatsSchema = v.object({
  name: v.string(),
  containers: v.number(),
  cpu_percent: v.number(),
  cpu_host_percent: v.number(),
  memory_bytes: v.number(),
  net_rx_bytes_per_s: v.number(),
  net_tx_bytes_per_s: v.number(),
  block_read_bytes_per_s: v.number(),
  block_write_bytes_per_s: v.number(),
  pids: v.number(),
})

export const hostStatsSchema = v.object({ cpus: nullableNumber, memory_bytes: nullableNumber })

/** `interval` (seconds) and one column per series: time, cpu_percent, memory_bytes, … */
export const historySchema = v.record(v.string(), v.union([v.number(), v.array(nullableNumber)]))

export const roundSchema = v.object({
  time: nullableString,
  interval: v.number(),
  host: hostStatsSchema,
  containers: v.array(containerStatsSchema),
  stacks: v.array(stackStatsSchema),
  error: nullableString,
})

export const allStatsSchema = v.object({
  ...roundSchema.entries,
  history: v.boolean(),
  containers: v.array(v.object({ ...containerStatsSchema.entries, history: v.optional(historySchema) })),
  stacks: v.array(v.object({ ...stackStatsSchema.entries, history: v.optional(historySchema) })),
})

export const containerViewSchema = v.object({
  id: v.string(),
  name: v.string(),
  stack: nullableString,
  service: nullableString,
  running: v.boolean(),
  time: nullableString,
  interval: v.number(),
  host: hostStatsSchema,
  latest: v.nullable(containerStatsSchema),
  history: v.optional(historySchema),
})

/** One message of a container's stats stream: a sample, or the note that it stopped. */
export const containerStreamSchema = v.union([
  containerStatsSchema,
  v.object({ id: v.string(), time: nullableString, running: v.literal(false) }),
])

export const stackViewSchema = v.object({
  name: v.string(),
  time: nullableString,
  interval: v.number(),
  host: hostStatsSchema,
  sum: stackStatsSchema,
  containers: v.array(containerStatsSchema),
  history: v.optional(historySchema),
  container_history: v.optional(v.record(v.string(), historySchema)),
})
