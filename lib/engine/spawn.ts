// The programs the service runs against the engine (the compose CLI, an image scanner, `docker`), each
// with a deadline: it runs in a process group of its own, and when its deadline passes or its caller
// gives up (an AbortSignal), the whole group gets SIGTERM, then SIGKILL after a grace period. A
// program still running when the service exits is killed with it, and so is one whose service was
// killed (SIGKILL, a crash: no exit handler runs): a watchdog in the program's group, started by the
// shell that then becomes the program, kills the group once the service is gone (checked every
// WATCH_SECONDS) and leaves on its own once the program ended. A compose left running by a dead
// service would otherwise go on changing the stack while the next start recovers it.
import type { Subprocess } from "bun"

/** How often the watchdog looks for the service. */
export const WATCH_SECONDS = 0.5

/**
 * The watchdog's shell: `/bin/sh -c WATCHDOG sh <service pid> <cmd...>` (see the module's comment); the
 * paths are whole, for a PATH without them. The watchdog leaves the program's folder (`cd /`): it outlives
 * the program by up to WATCH_SECONDS, and a folder held would keep its file system from being unmounted.
 */
const WATCHDOG = `p=$1; shift
(cd / && while kill -0 "$p" 2>/dev/null; do kill -0 $$ 2>/dev/null || exit 0; /bin/sleep ${WATCH_SECONDS}; done; kill -KILL 0) </dev/null >/dev/null 2>&1 &
exec "$@"`

/** How long to wait after SIGTERM before SIGKILL. */
export const KILL_GRACE_MS = 5000

export interface Deadline {
  /** Seconds the program may run. */
  timeout: number
  /** Stops the program early (a request whose client went away). */
  signal?: AbortSignal
  graceMs?: number
}

export type Stopped = "timeout" | "aborted"

export interface Bounded<P extends Subprocess> {
  proc: P
  /** The exit code (or the signal's number + 128), once the program and its timers are done. */
  exited: Promise<number>
  /** Why the program was stopped, if it was. */
  stopped(): Stopped | undefined
}

type Options = NonNullable<Parameters<typeof Bun.spawn>[1]>

/** A signal to a process group, if it is still there. */
function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal)
  } catch {
    // the group is gone already
  }
}

/** The groups running now, killed when the service exits (one listener for them all). */
const running = new Set<number>()
process.once("exit", () => running.forEach((pid) => killGroup(pid, "SIGKILL")))

/** Runs `cmd` under `deadline` (see the module's comment). */
export function spawnBounded<O extends Options>(
  cmd: string[],
  options: O,
  { timeout, signal, graceMs = KILL_GRACE_MS }: Deadline,
): Bounded<Subprocess<O["stdin"], O["stdout"], O["stderr"]>> {
  // A program that is not there is spawned as it is, to fail as it would (ENOENT), not in the shell.
  const found = Bun.which(cmd[0] ?? "", { PATH: options.env?.PATH ?? process.env.PATH ?? "", cwd: options.cwd })
  const watched = found ? ["/bin/sh", "-c", WATCHDOG, "sh", String(process.pid), ...cmd] : cmd
  const proc = Bun.spawn(watched, { ...options, detached: true }) as Subprocess<O["stdin"], O["stdout"], O["stderr"]>
  let stopped: Stopped | undefined
  let grace: ReturnType<typeof setTimeout> | undefined
  const stop = (why: Stopped) => {
    if (stopped || proc.exitCode !== null || proc.signalCode !== null) return
    stopped = why
    killGroup(proc.pid, "SIGTERM")
    grace = setTimeout(() => killGroup(proc.pid, "SIGKILL"), graceMs)
  }
  const onAbort = () => stop("aborted")
  const timer = setTimeout(() => stop("timeout"), timeout * 1000)
  running.add(proc.pid)
  signal?.addEventListener("abort", onAbort, { once: true })
  if (signal?.aborted) onAbort()
  const exited = proc.exited.finally(() => {
    clearTimeout(timer)
    clearTimeout(grace)
    running.delete(proc.pid)
    signal?.removeEventListener("abort", onAbort)
    // What the program left running in its group goes with it.
    if (stopped) killGroup(proc.pid, "SIGKILL")
  })
  return { proc, exited, stopped: () => stopped }
}
