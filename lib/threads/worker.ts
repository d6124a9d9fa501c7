// One worker thread that runs one job at a time, in the order asked, each within its deadline. A job
// past its deadline, or a thread that fails, stops the thread (a new one takes the next job); a job
// asked while `waiting` are already waiting is refused at once. The thread does not keep the process
// alive while it has nothing to do.
//
// The worker module gets `{id, ...request}` and answers `{id, value}` or `{id, error}` (a message).

/** Why a job did not answer a value: the worker's own error, a crash, its deadline, or too many waiting. */
export class ThreadFailure extends Error {
  constructor(
    readonly reason: "error" | "crashed" | "deadline" | "busy",
    message: string,
  ) {
    super(message)
    this.name = "ThreadFailure"
  }
}

export type ThreadReply<T> = { id: number; value: T } | { id: number; error: string }

type Thread = Worker & { ref(): void; unref(): void }

interface Job<Req> {
  request: Req
  deadlineMs: number
  resolve(value: unknown): void
  reject(err: Error): void
}

/**
 * The URL of a worker module next to `meta` (a module's import.meta). A compiled binary (`bun build
 * --compile`, which must list the module as an entrypoint) keeps it under its own root at `path`,
 * where import.meta.url names the binary itself.
 */
export const workerUrl = (meta: ImportMeta, path: string): URL =>
  meta.url.startsWith("file:///$bunfs/") ? new URL(path, meta.url) : new URL(`./${path.split("/").at(-1)}`, meta.url)

export class WorkerThread<Req extends object, Res> {
  private worker: Thread | undefined
  private queue: Job<Req>[] = []
  private busy = false
  private nextId = 1

  constructor(
    private url: URL,
    /** Jobs that may wait while one runs (past them, `busy`). */
    private waiting = Number.POSITIVE_INFINITY,
  ) {}

  /** The worker's answer to `request`, given `deadlineMs` once the thread takes it. */
  run(request: Req, deadlineMs: number): Promise<Res> {
    if (this.queue.length >= this.waiting)
      return Promise.reject(new ThreadFailure("busy", `${this.queue.length} jobs are waiting already`))
    return new Promise((resolve, reject) => {
      this.queue.push({ request, deadlineMs, resolve: resolve as (value: unknown) => void, reject })
      this.next()
    })
  }

  private next(): void {
    const job = this.busy ? undefined : this.queue.shift()
    if (!job) return this.worker?.unref()
    this.busy = true
    const worker = (this.worker ??= new Worker(this.url) as Thread)
    worker.ref()
    const id = this.nextId++
    const done = (settle: () => void) => {
      clearTimeout(timer)
      worker.removeEventListener("message", onMessage)
      worker.removeEventListener("error", onError)
      this.busy = false
      settle()
      this.next()
    }
    const onMessage = ({ data }: MessageEvent<ThreadReply<Res>>) => {
      if (data.id === id)
        done(() => ("error" in data ? job.reject(new ThreadFailure("error", data.error)) : job.resolve(data.value)))
    }
    const onError = (event: ErrorEvent) => {
      this.stop(worker)
      done(() => job.reject(new ThreadFailure("crashed", event.message || "the worker failed")))
    }
    const timer = setTimeout(() => {
      this.stop(worker)
      done(() => job.reject(new ThreadFailure("deadline", `it took longer than ${job.deadlineMs} ms`)))
    }, job.deadlineMs)
    worker.addEventListener("message", onMessage)
    worker.addEventListener("error", onError)
    worker.postMessage({ id, ...job.request })
  }

  private stop(worker: Thread): void {
    worker.terminate()
    if (this.worker === worker) this.worker = undefined
  }
}
