// What the alerts keep under <data>/alerts: the channels with their full URLs (channels.json, sealed,
// mode 0600: the only place a credential is kept), the rules, the conditions that fired and have not
// ended (state.json), the messages not yet delivered (outbox.json, so they survive a restart), and
// the history of every alert sent or given up (history.jsonl, one JSON line each, newest last,
// trimmed to the last HISTORY_KEEP). Every file but the history is written whole and atomically.
// What is written while alerts go out (state.json, outbox.json, the history) is written off the event
// loop, one write at a time per file in the order asked: a burst's writes and fsyncs never hold up
// the next event or the next send.
import { existsSync, readFileSync } from "node:fs"
import { appendFile, mkdir, readFile } from "node:fs/promises"
import { join } from "node:path"
import { readJson, writeFileAtomicAsync, writeJson, writeSealedJson } from "../data/datadir.ts"
import type { Rule } from "./rules.ts"

export interface Channel {
  id: string
  name: string
  /** The full address, credentials included: never leaves this server's disk but to its service. */
  url: string
  created: string
  updated: string
}

export interface HistoryEntry {
  seq: number
  time: string
  rule: string | null
  rule_name: string
  channel: string
  channel_name: string
  /** `firing`, `resolved`, or `test` (a channel's test). */
  state: "firing" | "resolved" | "test"
  result: "sent" | "failed"
  /** Tries it took. */
  attempts: number
  /** Alerts in the message it went in (grouped when more than one). */
  grouped: number
  title: string
  stack: string | null
  /** The service's answer of the last failed try, scrubbed of credentials. */
  error: string | null
}

export const HISTORY_KEEP = 5000

export class AlertFiles {
  readonly dir: string
  private seq = 0
  private lines = 0

  constructor(dataDir: string) {
    this.dir = join(dataDir, "alerts")
  }

  private path(name: string) {
    return join(this.dir, name)
  }

  channels = () => readJson<Channel[]>(this.path("channels.json"), [])
  saveChannels = (all: Channel[]) => writeSealedJson(this.path("channels.json"), all)
  rules = () => readJson<Rule[]>(this.path("rules.json"), [])
  saveRules = (all: Rule[]) => writeJson(this.path("rules.json"), all)
  read = <T>(name: "state.json" | "outbox.json", fallback: T) => readJson<T>(this.path(name), fallback)
  private readonly writing = new Map<string, Promise<void>>()

  /**
   * Writes `value` as it is now, after the writes of the file asked before (a failure is logged, and
   * the next write carries the whole content again). The outbox holds the messages' text and the
   * channels' ids only, never a credential; 0600 all the same.
   */
  write(name: "state.json" | "outbox.json", value: unknown): Promise<void> {
    const text = `${JSON.stringify(value, null, 2)}\n`
    return this.queue(name, () => writeFileAtomicAsync(this.path(name), text, 0o600))
  }

  private queue(name: string, work: () => Promise<void>): Promise<void> {
    const done = (this.writing.get(name) ?? Promise.resolve())
      .then(work)
      .catch((err) => console.error(`alerts: ${name} not written:`, err instanceof Error ? err.message : err))
    this.writing.set(name, done)
    return done
  }

  /** Resolves when every write asked so far has landed. */
  async settled(): Promise<void> {
    await Promise.all(this.writing.values())
  }

  /** Appends entries to the history (written soon, before any read of it), numbering them; trims the file past 1.2 × HISTORY_KEEP. */
  append(entries: Omit<HistoryEntry, "seq">[]): HistoryEntry[] {
    if (!entries.length) return []
    if (!this.seq) this.loadSeq()
    const numbered = entries.map((e) => ({ seq: ++this.seq, ...e }))
    const text = numbered.map((e) => `${JSON.stringify(e)}\n`).join("")
    this.lines += numbered.length
    const trim = this.lines > HISTORY_KEEP * 1.2
    if (trim) this.lines = HISTORY_KEEP
    void this.queue("history.jsonl", async () => {
      await mkdir(this.dir, { recursive: true })
      await appendFile(this.path("history.jsonl"), text, { mode: 0o600 })
      if (trim) await this.trim()
    })
    return numbered
  }

  private loadSeq(): void {
    const file = this.path("history.jsonl")
    if (!existsSync(file)) return
    const all = readFileSync(file, "utf8").trimEnd().split("\n").filter(Boolean)
    this.lines = all.length
    const last = all.at(-1)
    this.seq = last ? (JSON.parse(last) as HistoryEntry).seq : 0
  }

  private async trim(): Promise<void> {
    const file = this.path("history.jsonl")
    const all = (await readFile(file, "utf8")).trimEnd().split("\n").filter(Boolean)
    await writeFileAtomicAsync(file, `${all.slice(-HISTORY_KEEP).join("\n")}\n`, 0o600)
  }

  /** Entries newest first, older than `before` (a seq) when given, at most `limit`, those `keep` takes. */
  async history(
    limit: number,
    before: number | undefined,
    keep: (e: HistoryEntry) => boolean,
  ): Promise<{ entries: HistoryEntry[]; next: string | null }> {
    await this.writing.get("history.jsonl")
    let text = ""
    try {
      text = await readFile(this.path("history.jsonl"), "utf8")
    } catch {}
    const lines = text.trimEnd().split("\n").filter(Boolean)
    const entries: HistoryEntry[] = []
    let more = false
    for (let i = lines.length - 1; i >= 0; i--) {
      const e = JSON.parse(lines[i]!) as HistoryEntry
      if (before !== undefined && e.seq >= before) continue
      if (!keep(e)) continue
      if (entries.length === limit) {
        more = true
        break
      }
      entries.push(e)
    }
    return { entries, next: more && entries.length ? String(entries.at(-1)!.seq) : null }
  }
}
