// The service's background jobs as one list: started in order when the service starts, each given
// the context and one AbortSignal, and stopped together at shutdown. A job that fails (at its start
// or later) is logged by its name and keeps its message; the others run on.

export interface Job<C> {
  name: string
  /** Begins the work; what it answers settles when the work ends (a loop: once the signal aborted). */
  start: (ctx: C, signal: AbortSignal) => unknown
  /** What the signal does not end, undone at shutdown. */
  stop?: (ctx: C) => unknown
}

export interface JobState {
  name: string
  /** `done`: its work ended by itself; `stopped`: it was running at shutdown. */
  state: "running" | "done" | "failed" | "stopped"
  message?: string
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err))

export class Jobs<C> {
  private readonly abort = new AbortController()
  private readonly started: { job: Job<C>; state: JobState; ended: Promise<void>; over?: boolean }[] = []
  private ctx: C | undefined

  constructor(private readonly log: (line: string) => void = console.error) {}

  /** Starts each job in the list's order; a synchronous start has finished before the next begins. None once stopped. */
  start(list: Job<C>[], ctx: C): void {
    this.ctx = ctx
    const signal = this.abort.signal
    if (signal.aborted) return
    for (const job of list) {
      const state: JobState = { name: job.name, state: "running" }
      // Runs synchronously up to the job's first await: a start that throws is caught here.
      const run = async () => {
        try {
          await job.start(ctx, signal)
          if (!signal.aborted) state.state = "done"
        } catch (err) {
          if (signal.aborted) return
          Object.assign(state, { state: "failed", message: messageOf(err) })
          this.log(`job ${job.name} failed: ${state.message}`)
        }
      }
      const entry: (typeof this.started)[number] = { job, state, ended: Promise.resolve() }
      entry.ended = run().finally(() => (entry.over = true))
      this.started.push(entry)
    }
  }

  /** Every job's state, in the list's order. */
  states(): JobState[] {
    return this.started.map(({ state }) => ({ ...state }))
  }

  /**
   * Aborts the signal, runs each job's own stop (in reverse order; one that throws is logged), and
   * waits up to `graceMs` for the jobs' work to end (naming those that did not).
   */
  async stop(graceMs = 2000): Promise<void> {
    this.abort.abort()
    for (const { state } of this.started) if (state.state === "running") state.state = "stopped"
    for (const { job } of [...this.started].reverse()) {
      try {
        await job.stop?.(this.ctx as C)
      } catch (err) {
        this.log(`job ${job.name} did not stop: ${messageOf(err)}`)
      }
    }
    let timer: ReturnType<typeof setTimeout> | undefined
    await Promise.race([
      Promise.all(this.started.map((s) => s.ended)),
      new Promise((r) => (timer = setTimeout(r, graceMs))),
    ])
    clearTimeout(timer)
    for (const { job, over } of this.started)
      if (!over) this.log(`job ${job.name} did not end within ${graceMs} ms of the stop`)
  }
}
