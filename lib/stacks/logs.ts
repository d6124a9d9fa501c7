// A stack's log: every container's lines (lib/engine/logs.ts) merged as they arrive, `tail` per
// container (a swarm stack's services' lines are merged the same way: lib/stacks/swarm.ts).
// The merge hands out batches (all lines that arrived since the reader last asked), so that a fast
// stack goes out in few large chunks rather than one write per line.
import type { Engine } from "../engine/client.ts"
import { containerLogs, type LogLineRecord, type LogQuery } from "../engine/logs.ts"

/** Items waiting before the sources are held back until the reader catches up. */
const HIGH_WATER = 4096

/** Merges sources into batches; it ends when every source has ended, and fails when one fails. */
export async function* mergeBatches<T>(sources: AsyncIterable<T>[]): AsyncGenerator<T[]> {
  let queue: T[] = []
  let live = sources.length
  let failure: { error: unknown } | undefined
  let stopped = false
  let wake: (() => void) | undefined
  let room: { promise: Promise<void>; open: () => void } | undefined
  const pump = async (source: AsyncIterable<T>) => {
    try {
      for await (const item of source) {
        if (stopped) break
        queue.push(item)
        wake?.()
        if (queue.length >= HIGH_WATER) {
          if (!room) {
            let open!: () => void
            room = { promise: new Promise<void>((r) => (open = r)), open }
          }
          await room.promise
        }
      }
    } catch (error) {
      failure ??= { error }
    } finally {
      live--
      wake?.()
    }
  }
  sources.forEach(pump)
  try {
    for (;;) {
      if (queue.length) {
        const batch = queue
        queue = []
        room?.open()
        room = undefined
        yield batch
      } else if (failure) throw failure.error
      else if (live === 0) return
      else {
        await new Promise<void>((r) => (wake = r))
        // Let the sources finish the chunk they are splitting: the batch then holds its lines.
        await new Promise((r) => setImmediate(r))
      }
    }
  } finally {
    stopped = true
    room?.open()
  }
}

export async function stackLogs(
  engine: Engine,
  containerIds: string[],
  q: LogQuery,
): Promise<AsyncIterable<LogLineRecord[]>> {
  return mergeBatches(await Promise.all(containerIds.map((id) => containerLogs(engine, id, q))))
}
