// What a killed process left midway (lib/data/intents.ts), finished or undone at start, each under its
// stack's lock, as the operation's own failure path would have: a release undone (or found done), the
// containers a backup stopped started again, a removal finished. Each recovery is told as the stack's `recovered` event
// and in the log, and noted with the stack until its next release; one that fails (the engine not answering yet) is tried again every RETRY_MS.
import { setTimeout as pause } from "node:timers/promises"
import { endIntent, leftIntents, type Intent } from "../data/intents.ts"
import { startStopped, type StopIntent } from "../backups/hooks.ts"
import type { ReleaseIntent, RemoveIntent } from "../stacks/store.ts"
import type { Ctx } from "./context.ts"

const RETRY_MS = 10_000

type Recovery = (ctx: Ctx, intent: Intent) => Promise<string>

const RECOVERIES: Record<string, Recovery> = {
  release: (ctx, i) => ctx.stacks.recoverRelease(i.stack, i.data as ReleaseIntent),
  remove: (ctx, i) => ctx.stacks.recoverRemove(i.stack, i.data as RemoveIntent),
  "backup.stop": (ctx, i) =>
    ctx.stacks.lock(i.stack, async () => {
      const started = await startStopped(ctx.engine, (i.data as StopIntent).containers)
      return `the backup that stopped it was cut short: ${started} container(s) started again`
    }),
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err))

/** Recovers every intent left, until each is done or the signal aborts. */
export async function recoverLeft(ctx: Ctx, signal: AbortSignal): Promise<void> {
  let left = await leftIntents(ctx.config.dataDir)
  while (left.length && !signal.aborted) {
    const failed: Intent[] = []
    for (const intent of left) {
      const recover = RECOVERIES[intent.op]
      if (!recover) {
        console.error(
          `stack ${intent.stack}: an operation ${intent.op} was cut short, which this release cannot recover`,
        )
        continue
      }
      try {
        const what = await recover(ctx, intent)
        await ctx.stacks.noteRecovered(intent.stack, what)
        endIntent(ctx.config.dataDir, intent)
        const message = `stack ${intent.stack}: ${what} (recovered at start)`
        ctx.events.publish({ type: "stack", action: "recovered", name: intent.stack, level: "info", message })
        console.log(message)
      } catch (err) {
        failed.push(intent)
        console.error(`stack ${intent.stack}: recovering its ${intent.op} failed, tried again: ${messageOf(err)}`)
      }
    }
    left = failed
    if (left.length) await pause(RETRY_MS, undefined, { signal }).catch(() => {})
  }
}
