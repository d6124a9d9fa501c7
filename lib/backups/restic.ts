// restic run under a deadline (lib/engine/spawn.ts): the repository and its password go in restic's
// environment, never on its command line, and no answer repeats the repository string (a rest: URL
// may carry credentials). What restic says on failure becomes an HttpError: a refused password 409,
// a full repository 507, a deadline 504, the rest 502 with restic's last words.
import type { FileSink } from "bun"
import { spawnBounded, type Deadline } from "../engine/spawn.ts"
import { HttpError } from "../http/http-error.ts"
import type { Repo } from "./repos.ts"

export const RESTIC = process.env.SVC_RESTIC ?? "restic"

function env(repo: Repo): Record<string, string> {
  return {
    ...(process.env as Record<string, string>),
    RESTIC_REPOSITORY: repo.repository,
    RESTIC_PASSWORD: repo.password,
    ...(repo.rclone_config ? { RCLONE_CONFIG: repo.rclone_config } : {}),
  }
}

function failure(stderr: string, code: number, stopped: string | undefined, what: string): HttpError {
  if (stopped === "timeout") return new HttpError(504, "backup_timeout", `${what} ran past its deadline and was stopped`)
  if (stopped === "aborted") return new HttpError(499, "backup_aborted", `${what} was stopped: its caller went away`)
  if (/wrong password|no key found/i.test(stderr)) return new HttpError(409, "repository_password", `${what}: the repository refused the password`)
  if (/no space left on device/i.test(stderr)) return new HttpError(507, "repository_full", `${what}: the repository's disk is full`)
  if (/Is there a repository at the following location|repository does not exist|unable to open config file/i.test(stderr))
    return new HttpError(404, "repository_missing", `${what}: no restic repository there (add it with init: true)`)
  const last = stderr.trim().split("\n").slice(-3).join(" | ")
  return new HttpError(502, "restic_failed", `${what} failed (restic exited ${code}): ${last}`)
}

/**
 * Runs restic with `args` and answers its standard output; `stdin` is fed to it when given. A source
 * that fails midway stops restic before it could record a snapshot of what it had read so far.
 */
export async function restic(repo: Repo, args: string[], deadline: Deadline, stdin?: ReadableStream<Uint8Array>): Promise<string> {
  const source = new AbortController()
  const signal = deadline.signal ? AbortSignal.any([deadline.signal, source.signal]) : source.signal
  const run = spawnBounded([RESTIC, ...args], { env: env(repo), stdin: stdin ? "pipe" : "ignore", stdout: "pipe", stderr: "pipe" }, { ...deadline, signal })
  const reader = stdin?.getReader()
  let failed: unknown
  if (reader)
    void feed(reader, run.proc.stdin as FileSink, (err) => {
      failed = err
      source.abort()
    })
  try {
    const [out, err, code] = await Promise.all([new Response(run.proc.stdout).text(), new Response(run.proc.stderr).text(), run.exited])
    if (failed) throw failed
    if (code !== 0) throw failure(err, code, run.stopped(), `restic ${args[0]}`)
    return out
  } finally {
    // A restic that stopped early leaves the rest of its input unread: its source is let go.
    await reader?.cancel().catch(() => {})
  }
}

/** Writes the stream into restic's standard input, each chunk drained before the next, and closes it at its end. */
async function feed(reader: ReadableStreamDefaultReader<Uint8Array>, sink: FileSink, sourceFailed: (err: unknown) => void): Promise<void> {
  for (;;) {
    let chunk: Awaited<ReturnType<typeof reader.read>>
    try {
      chunk = await reader.read()
    } catch (err) {
      return sourceFailed(err)
    }
    try {
      if (chunk.done) return void (await sink.end())
      // write() answers a promise when the pipe is full: awaited, so that restic's early exit (EPIPE)
      // is caught here and never becomes an unhandled rejection, which would end the process.
      await sink.write(chunk.value)
      await sink.flush()
    } catch {
      return // restic went away: its exit code tells why
    }
  }
}

/** restic's output as a stream (`dump`); `done` settles once restic exited, failing as `restic` does. */
export function resticStream(repo: Repo, args: string[], deadline: Deadline): { stdout: ReadableStream<Uint8Array>; done: Promise<void> } {
  const run = spawnBounded([RESTIC, ...args], { env: env(repo), stdin: "ignore", stdout: "pipe", stderr: "pipe" }, deadline)
  const err = new Response(run.proc.stderr).text()
  const done = Promise.all([err, run.exited]).then(([text, code]) => {
    if (code !== 0) throw failure(text, code, run.stopped(), `restic ${args[0]}`)
  })
  done.catch(() => {})
  return { stdout: run.proc.stdout, done }
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
