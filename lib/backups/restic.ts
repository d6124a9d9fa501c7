// restic run under a deadline (lib/engine/spawn.ts): the repository and its password go in restic's
// environment, never on its command line, and no answer repeats the repository string (a rest: URL
// may carry credentials). What restic says on failure becomes a domain error: a refused password a
// conflict, a full repository no_space, a deadline timed_out, the rest upstream with restic's last words.
import { spawnBounded, type Deadline } from "../engine/spawn.ts"
import { canceled, conflict, DomainError, noSpace, notFound, timedOut, upstream } from "../errors/errors.ts"
import { hideIn } from "../credentials/urls.ts"
import { confined } from "../volumes/folder.ts"
import type { Repo } from "./repos.ts"

export const RESTIC = process.env.SVC_RESTIC ?? "restic"

function env(repo: Repo, more: Record<string, string> = {}): Record<string, string> {
  return {
    ...(process.env as Record<string, string>),
    ...more,
    RESTIC_REPOSITORY: repo.repository,
    RESTIC_PASSWORD: repo.password,
    ...(repo.rclone_config ? { RCLONE_CONFIG: repo.rclone_config } : {}),
  }
}

function failure(stderr: string, code: number, stopped: string | undefined, what: string): DomainError {
  if (stopped === "timeout") return timedOut(`${what} ran past its deadline and was stopped`, "backup_timeout")
  if (stopped === "aborted") return canceled(`${what} was stopped: its caller went away`, "backup_aborted")
  if (/wrong password|no key found/i.test(stderr))
    return conflict(`${what}: the repository refused the password`, "repository_password")
  if (/no space left on device/i.test(stderr))
    return noSpace(`${what}: the repository's disk is full`, "repository_full")
  if (
    /Is there a repository at the following location|repository does not exist|unable to open config file/i.test(stderr)
  )
    return notFound(`${what}: no restic repository there (add it with init: true)`, "repository_missing")
  const last = stderr.trim().split("\n").slice(-3).join(" | ")
  return upstream(`${what} failed (restic exited ${code}): ${last}`, "restic_failed")
}

export interface ResticIo {
  /** Fed to restic's standard input. */
  stdin?: ReadableStream<Uint8Array>
  /** Each line restic prints, as it prints it (its --json status lines). */
  onLine?: (line: string) => void
  /** More of restic's environment (RESTIC_PROGRESS_FPS). */
  env?: Record<string, string>
  /** A volume's folder restic runs in, confined there (lib/volumes/folder.ts); written only when `write`. */
  folder?: { path: string; write: boolean }
  /** Bookkeeping beside a transfer (a listing, the records): run at a lower CPU priority than the data's restic. */
  aside?: boolean
}

/**
 * Runs restic with `args` and answers its standard output. `stdin` is handed to the process as its
 * input stream (the runtime writes it without a JavaScript write per chunk); a source that fails
 * midway stops restic, and its exit is awaited, before its input is closed, so it never records a
 * snapshot of what it had read so far.
 */
export async function restic(repo: Repo, args: string[], deadline: Deadline, io: ResticIo = {}): Promise<string> {
  const source = new AbortController()
  const signal = deadline.signal ? AbortSignal.any([deadline.signal, source.signal]) : source.signal
  let failed: unknown
  let exited: Promise<number> = Promise.resolve(0)
  const input =
    io.stdin &&
    stopOnFailure(io.stdin, async (err) => {
      failed = err
      source.abort()
      await exited
    })
  const program = io.aside ? ["nice", "-n", "10", RESTIC] : [RESTIC]
  const cmd = io.folder ? confined(io.folder.path, io.folder.write, [...program, ...args]) : [...program, ...args]
  const run = spawnBounded(
    cmd,
    { env: env(repo, io.env), stdin: input?.stream ?? "ignore", stdout: "pipe", stderr: "pipe" },
    { ...deadline, signal },
  )
  exited = run.exited
  try {
    // restic retries a write that failed for a while (minutes, with backoff); a full disk does not
    // empty itself meanwhile, so its first "no space left" stops it.
    let full = false
    const onError = (line: string) => {
      if (!full && /no space left on device/i.test(line)) (full = true), source.abort()
    }
    const [out, err, code] = await Promise.all([
      io.onLine ? lines(run.proc.stdout, io.onLine) : new Response(run.proc.stdout).text(),
      lines(run.proc.stderr, onError),
      run.exited,
    ])
    if (failed) throw failed
    if (code !== 0)
      throw failure(hideIn(err, repo.repository), code, full ? undefined : run.stopped(), `restic ${args[0]}`)
    return out
  } finally {
    // A restic that stopped early leaves the rest of its input unread: its source is let go.
    await input?.release()
  }
}

/** The source as it comes; when it fails, `stop` runs (and is awaited) before the stream errors. `release` lets the source go. */
function stopOnFailure(
  source: ReadableStream<Uint8Array>,
  stop: (err: unknown) => Promise<void>,
): { stream: ReadableStream<Uint8Array>; release: () => Promise<void> } {
  const reader = source.getReader()
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        let chunk: Awaited<ReturnType<typeof reader.read>>
        try {
          chunk = await reader.read()
        } catch (err) {
          await stop(err)
          return controller.error(err)
        }
        if (chunk.done) controller.close()
        else controller.enqueue(chunk.value)
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  )
  return { stream, release: () => reader.cancel().catch(() => {}) }
}

/** Reads the stream's lines into `onLine` as they come; answers the whole text. */
async function lines(stream: ReadableStream<Uint8Array>, onLine: (line: string) => void): Promise<string> {
  const decoder = new TextDecoder()
  let all = ""
  let rest = ""
  for await (const chunk of stream) {
    const text = decoder.decode(chunk, { stream: true })
    all += text
    const parts = (rest + text).split("\n")
    rest = parts.pop()!
    for (const line of parts) onLine(line)
  }
  if (rest) onLine(rest)
  return all
}

/** How far restic's streamed output is read ahead of its consumer, so that restic goes on while the consumer writes. */
export const READ_AHEAD = 8 << 20

/**
 * restic's output as a stream (`dump`), read up to READ_AHEAD ahead; `done` settles once restic
 * exited, failing as `restic` does; `stop` ends restic whoever holds its output.
 */
export function resticStream(
  repo: Repo,
  args: string[],
  deadline: Deadline,
): { stdout: ReadableStream<Uint8Array>; done: Promise<void>; stop: () => void } {
  const run = spawnBounded(
    [RESTIC, ...args],
    { env: env(repo), stdin: "ignore", stdout: "pipe", stderr: "pipe" },
    deadline,
  )
  const err = new Response(run.proc.stderr).text()
  const done = Promise.all([err, run.exited]).then(([text, code]) => {
    if (code !== 0) throw failure(hideIn(text, repo.repository), code, run.stopped(), `restic ${args[0]}`)
  })
  done.catch(() => {})
  const reader = run.proc.stdout.getReader()
  const stdout = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const { done: end, value } = await reader.read()
        if (end) controller.close()
        else controller.enqueue(value)
      },
      cancel: (reason) => reader.cancel(reason).catch(() => {}),
    },
    new ByteLengthQueuingStrategy({ highWaterMark: READ_AHEAD }),
  )
  return { stdout, done, stop: () => run.proc.kill("SIGTERM") }
}

/** The lines of restic's --json output that parse, of one message type. */
export function jsonLines<T>(out: string, type: string): T[] {
  return out.split("\n").flatMap((line) => {
    try {
      const m = JSON.parse(line)
      return m?.message_type === type ? [m as T] : []
    } catch {
      return []
    }
  })
}
