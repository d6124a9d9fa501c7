// Crash points: named places an operation passes through, where a test has the process killed
// (SIGKILL) to prove that what it left is recovered at the next start (lib/data/intents.ts). A test
// sets HM_CRASH_AT to a comma-separated list of `name` (killed the first time the process passes
// there) or `name@k` (killed the k-th time). Besides the points an operation names (`release.written`,
// `backup.stopped`, ...), every durable step of the data directory (a file written, a folder made or
// removed, a rename: each once synced) is the point `step` while an operation's intent is open, from
// its intent's write to its removal: `step@k` kills an operation after its k-th durable step, which
// lets a test enumerate them all. Without HM_CRASH_AT each point is one lookup in an empty set.
const wanted = new Map<string, number>()
for (const entry of (process.env.HM_CRASH_AT ?? "").split(",").filter(Boolean)) {
  const [name, at] = entry.split("@")
  wanted.set(name!, Number(at ?? 1))
}
const passed = new Map<string, number>()
let open = 0

/** A named crash point (see the module's comment): the process is killed here when a test asks for it. */
export function crashPoint(name: string): void {
  const at = wanted.get(name)
  if (at === undefined) return
  const n = (passed.get(name) ?? 0) + 1
  passed.set(name, n)
  if (n === at) process.kill(process.pid, "SIGKILL")
}

/** A durable step of the data directory: the crash point `step` while an operation's intent is open. */
export function durableStep(): void {
  if (open > 0) crashPoint("step")
}

/** An operation's intent is about to be written (`opened`) or was removed: its steps count between. */
export function operationSpan(opened: boolean): void {
  open += opened ? 1 : -1
}
