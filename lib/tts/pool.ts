// A small pool of speech worker processes (lib/tts/worker.ts), so that nothing a synthesis does can
// crash, block or bloat the service: each worker is its own process (Bun.spawn), started with a cap
// on its address space (`ulimit -v`) and a lower CPU priority, and talks frames over stdin/stdout
// (lib/http/worker-frames.ts). One request at a time per worker, each with a deadline: past it the worker
// is killed and the request answers 504 `tts_timeout`; a worker that dies mid-request (a native
// crash, the memory cap) answers 502 `tts_engine_crashed`. Either way the next request gets a fresh
// worker. Workers are started on demand, retired when their memory has grown past a bound, and
// leave after a minute without work, so an idle service holds none.
import { readFileSync } from "node:fs"
import { setPriority } from "node:os"
import { DomainError, isDomainError, timedOut, upstream } from "../errors/errors.ts"
import { encodeFrame, FrameReader, type Frame } from "../http/worker-frames.ts"
import type { WorkerReply, WorkerRequest } from "./worker.ts"

export interface PoolOptions {
  /** Worker processes at most. */
  size: number
  /** Address-space cap of each worker, in MiB (`ulimit -v`). */
  memoryMb: number
  /** A worker whose resident memory exceeds this after a request is replaced (MiB). */
  recycleMb?: number
  /** Milliseconds a worker may sit idle before it leaves. */
  idleMs?: number
  /** The command that starts a worker (default: this Bun running lib/tts/worker.ts). */
  command?: string[]
  /** The workers' environment (the service's configuration gives PATH and HOME); nothing else of the service's own is passed on. */
  env?: Record<string, string>
}

/**
 * How a worker is started. From source: this Bun running worker.ts. In a compiled binary (no source
 * on disk) the binary itself, with HM_TTS_WORKER=1, which server.ts turns into a worker at start.
 */
export function workerCommand(): { command: string[]; env: Record<string, string> } {
  if (import.meta.url.startsWith("file:///$bunfs/")) return { command: [process.execPath], env: { HM_TTS_WORKER: "1" } }
  return { command: [process.execPath, new URL("./worker.ts", import.meta.url).pathname], env: {} }
}

type Subprocess = ReturnType<typeof Bun.spawn> & { stdin: import("bun").FileSink; stdout: ReadableStream<Uint8Array> }

interface Job {
  id: number
  resolve(frame: Frame<WorkerReply>): void
  reject(err: Error): void
  timer: Timer
}

let nextId = 1

class WorkerProcess {
  readonly proc: Subprocess
  job: Job | undefined
  dead = false
  idleTimer: Timer | undefined
  /** Why the worker was killed by us (a deadline), so its exit is not taken for a crash. */
  killedFor: string | undefined

  constructor(
    options: PoolOptions,
    private readonly onExit: (w: WorkerProcess) => void,
  ) {
    const started = workerCommand()
    const command = options.command ?? started.command
    const kb = Math.round(options.memoryMb * 1024)
    this.proc = Bun.spawn(["sh", "-c", 'ulimit -v "$0" && exec "$@"', String(kb), ...command], {
      stdin: "pipe",
      stdout: "pipe",
      stderr: "inherit",
      env: { ...options.env, ...started.env },
    }) as Subprocess
    try {
      setPriority(this.proc.pid, 10) // the service's own requests come first
    } catch {}
    this.proc.unref()
    void this.read()
    void this.proc.exited.then(() => this.exited())
  }

  private async read(): Promise<void> {
    const reader = new FrameReader()
    try {
      for await (const chunk of this.proc.stdout) {
        for (const frame of reader.push(chunk)) this.settle(frame as Frame<WorkerReply & { id: number }>)
      }
    } catch (err) {
      this.kill(`its output broke (${err instanceof Error ? err.message : String(err)})`)
    }
  }

  private settle(frame: Frame<WorkerReply & { id: number }>): void {
    const job = this.job
    if (!job || job.id !== frame.header.id) return
    clearTimeout(job.timer)
    this.job = undefined
    job.resolve(frame)
  }

  private exited(): void {
    this.dead = true
    clearTimeout(this.idleTimer)
    this.failJob()
    this.onExit(this)
  }

  /** The request in flight, answered for a worker that is gone: 504 past its deadline, else 502. */
  private failJob(): void {
    const job = this.job
    this.job = undefined
    if (job) {
      clearTimeout(job.timer)
      const how = this.proc.signalCode ? `signal ${this.proc.signalCode}` : `exit code ${this.proc.exitCode}`
      job.reject(
        this.killedFor === "deadline"
          ? timedOut("the synthesis took longer than its deadline and was stopped", "tts_timeout")
          : upstream(
              `the speech back end's process died (${this.killedFor ?? how}); the service is fine, and other texts can be spoken`,
              "tts_engine_crashed",
            ),
      )
    }
  }

  /** Gone or going: killed by us, or exited. */
  get retired(): boolean {
    return this.dead || this.killedFor !== undefined
  }

  kill(reason: string): void {
    this.killedFor ??= reason
    this.proc.kill("SIGKILL")
  }

  send(request: WorkerRequest, timeoutMs: number): Promise<Frame<WorkerReply>> {
    const id = nextId++
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => this.kill("deadline"), timeoutMs)
      this.job = { id, resolve, reject, timer }
      this.proc.ref()
      try {
        // A write into a full pipe answers a promise: both are watched, so that a worker gone meanwhile
        // (EPIPE) kills it here instead of rejecting where nobody listens.
        const written = this.proc.stdin.write(encodeFrame({ ...request, id }))
        void Promise.all([written, this.proc.stdin.flush()]).catch(() => this.kill("its input closed"))
      } catch {
        // The worker died before its request could be written (a cap too small to start): its exit
        // answers the request, or has already come and gone.
        this.kill("its input closed")
        if (this.dead) this.failJob()
      }
    }).finally(() => {
      if (!this.dead) this.proc.unref()
    }) as Promise<Frame<WorkerReply>>
  }

  /** Resident memory in MiB (0 when it cannot be read). */
  rssMb(): number {
    try {
      const line = readFileSync(`/proc/${this.proc.pid}/status`, "utf8")
        .split("\n")
        .find((l: string) => l.startsWith("VmRSS:"))
      return line ? Number(line.split(/\s+/)[1]) / 1024 : 0
    } catch {
      return 0
    }
  }
}

export class WorkerPool {
  private workers: WorkerProcess[] = []
  private idle: WorkerProcess[] = []
  private waiting: ((w: WorkerProcess) => void)[] = []
  /** Workers that died while busy, for tests and logs. */
  crashes = 0

  constructor(readonly options: PoolOptions) {}

  /** Runs one request on a worker; a failed reply becomes its domain error. */
  async run(request: WorkerRequest, timeoutMs: number): Promise<Frame<WorkerReply & { ok: true }>> {
    const worker = await this.acquire()
    let frame: Frame<WorkerReply>
    try {
      frame = await worker.send(request, timeoutMs)
    } catch (err) {
      if (isDomainError(err) && err.code === "tts_engine_crashed") this.crashes++
      throw err
    } finally {
      this.release(worker)
    }
    const reply = frame.header
    if (!reply.ok) throw new DomainError(reply.kind, reply.code, reply.message)
    return frame as Frame<WorkerReply & { ok: true }>
  }

  /** Stops every worker. */
  close(): void {
    for (const w of this.workers) w.kill("closed")
    this.workers = []
    this.idle = []
  }

  /** Process ids of the running workers (tests, benchmarks). */
  pids(): number[] {
    return this.workers.map((w) => w.proc.pid)
  }

  private acquire(): Promise<WorkerProcess> {
    const worker = this.idle.pop()
    if (worker) {
      clearTimeout(worker.idleTimer)
      return Promise.resolve(worker)
    }
    if (this.workers.length < this.options.size) return Promise.resolve(this.spawn())
    return new Promise((resolve) => this.waiting.push(resolve))
  }

  private release(worker: WorkerProcess): void {
    if (!worker.retired && worker.rssMb() > (this.options.recycleMb ?? 400)) worker.kill("recycled")
    if (worker.retired) {
      this.forget(worker)
      // its replacement serves the next in line
      const next = this.waiting.shift()
      if (next) next(this.spawn())
      return
    }
    const next = this.waiting.shift()
    if (next) return next(worker)
    this.idle.push(worker)
    worker.idleTimer = setTimeout(() => {
      worker.kill("idle")
      this.forget(worker)
    }, this.options.idleMs ?? 60_000)
    worker.idleTimer.unref?.()
  }

  private forget(w: WorkerProcess): void {
    this.workers = this.workers.filter((x) => x !== w)
    this.idle = this.idle.filter((x) => x !== w)
  }

  private spawn(): WorkerProcess {
    const worker = new WorkerProcess(this.options, (w) => this.forget(w))
    this.workers.push(worker)
    return worker
  }
}
