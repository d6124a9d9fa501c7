// The intent journal: an operation with steps outside a stack's own files (a release that writes the
// stack's records and then recreates its containers, a backup that stops a stack for its snapshot)
// writes what it is about to do before its first step (`<data>/intents/<id>.json`, sealed: it may
// hold a stack's environment; synced, so it outlives a power loss) and removes it when it ended,
// whichever way. An intent found at start is one whose process died midway: the service finishes or
// undoes what it says (lib/service/recovery.ts), as the operation's own failure path would have.
//
// Crash points (lib/data/crash.ts) prove the recovery: a test has the process killed at one.
import { readdirSync } from "node:fs"
import { join } from "node:path"
import { operationSpan } from "./crash.ts"
import { readJson, removeDurably, writeSealedJson } from "./datadir.ts"

export interface Intent<T = unknown> {
  id: string
  /** What the operation is (`release`, `backup.stop`): the recovery that reads it. */
  op: string
  /** The stack it changes. */
  stack: string
  /** The process that wrote it: one still running is not recovered. */
  pid: number
  started: string
  /** What the recovery needs, as the operation wrote it. */
  data: T
}

export const INTENTS_DIR = "intents"

const file = (dataDir: string, id: string) => join(dataDir, INTENTS_DIR, `${id}.json`)

/** Writes the intent of an operation about to start; `end` removes it. */
export function beginIntent<T>(dataDir: string, op: string, stack: string, data: T): Intent<T> {
  const id = `${Date.now()}-${process.pid}-${Math.random().toString(36).slice(2, 10)}`
  const intent: Intent<T> = { id, op, stack, pid: process.pid, started: new Date().toISOString(), data }
  operationSpan(true)
  try {
    writeSealedJson(file(dataDir, id), intent)
  } catch (err) {
    operationSpan(false)
    throw err
  }
  return intent
}

/** The operation ended (done or undone): its intent goes. */
export function endIntent(dataDir: string, intent: Pick<Intent, "id">): void {
  try {
    removeDurably(file(dataDir, intent.id))
  } finally {
    operationSpan(false)
  }
}

/** The intents another process left (oldest first): operations it did not finish. */
export async function leftIntents(dataDir: string): Promise<Intent[]> {
  let names: string[]
  try {
    names = readdirSync(join(dataDir, INTENTS_DIR))
  } catch {
    return []
  }
  const found = await Promise.all(
    names
      .filter((n) => n.endsWith(".json"))
      .sort()
      .map((n) => readJson<Intent | undefined>(join(dataDir, INTENTS_DIR, n), undefined)),
  )
  return found.filter((i): i is Intent => i !== undefined && i.pid !== process.pid)
}
