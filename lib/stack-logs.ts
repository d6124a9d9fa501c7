// A stack's log: every container's lines (lib/logs.ts) merged as they arrive, `tail` per container.
import type { Engine } from "./engine.ts"
import { containerLogs, type LogLineRecord, type LogQuery } from "./logs.ts"

/** Merges several line sources into one; it ends when all have ended (or when the consumer stops). */
export async function* merge<T>(sources: AsyncIterable<T>[]): AsyncGenerator<T> {
  const iterators = sources.map((s) => s[Symbol.asyncIterator]())
  const pending = new Map(iterators.map((it, i) => [i, it.next().then((r) => ({ i, r }))]))
  try {
    while (pending.size) {
      const { i, r } = await Promise.race(pending.values())
      if (r.done) {
        pending.delete(i)
        continue
      }
      pending.set(i, iterators[i]!.next().then((r) => ({ i, r })))
      yield r.value
    }
  } finally {
    for (const it of iterators) it.return?.()?.catch(() => {})
  }
}

export async function stackLogs(engine: Engine, containerIds: string[], q: LogQuery): Promise<AsyncIterable<LogLineRecord>> {
  return merge(await Promise.all(containerIds.map((id) => containerLogs(engine, id, q))))
}
