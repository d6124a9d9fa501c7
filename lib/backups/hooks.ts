// What runs around a stack's snapshot so that its data is at rest: a command in one of its services
// first (a database dump into a volume), and the stack's running containers stopped during the
// snapshot and always started again, whether the snapshot succeeded or not. A hook's output is read
// and dropped: it may print what the stack keeps secret.
import type { Engine } from "../engine/client.ts"
import { SERVICE_LABEL, STACK_LABEL } from "../engine/containers.ts"
import type { Deadline } from "../engine/spawn.ts"
import { canceled, conflict, isDomainError, upstream } from "../errors/errors.ts"
import { crashPoint } from "../data/crash.ts"
import { beginIntent, endIntent } from "../data/intents.ts"

export interface Hooks {
  /** A command run in the service's running container before the snapshot; it must exit 0. */
  exec?: { service: string; command: string[] }
  /** Stop the stack's running containers during the snapshot. */
  stop?: boolean
}

const running = (engine: Engine, stack: string, service?: string) =>
  engine.listContainers({
    filters: {
      label: [`${STACK_LABEL}=${stack}`, ...(service ? [`${SERVICE_LABEL}=${service}`] : [])],
      status: ["running"],
    },
  })

/**
 * Runs the exec hook; 409 when the service runs no container, 502 when the command fails or outlives
 * the deadline's seconds, 499 when the deadline's signal (the caller went away) stops the wait.
 */
export async function runExecHook(
  engine: Engine,
  stack: string,
  hook: NonNullable<Hooks["exec"]>,
  deadline: Deadline,
): Promise<void> {
  const { timeout, signal } = deadline
  const [container] = await running(engine, stack, hook.service)
  if (!container)
    throw conflict(`service ${hook.service} of ${stack} runs no container for the backup's hook`, "hook_failed")
  const session = await engine.exec(container.Id, { cmd: hook.command, tty: false, detachKeys: "" })
  const timer = setTimeout(() => session.close(), timeout * 1000)
  const onAbort = () => session.close()
  signal?.addEventListener("abort", onAbort, { once: true })
  if (signal?.aborted) onAbort()
  try {
    for await (const _ of session.output);
  } finally {
    clearTimeout(timer)
    signal?.removeEventListener("abort", onAbort)
    session.close()
  }
  if (signal?.aborted)
    throw canceled(`the backup's hook in service ${hook.service} was left: its caller went away`, "backup_aborted")
  const { ExitCode, Running } = await engine.execInspect(session.id)
  if (Running || ExitCode !== 0)
    throw upstream(
      `the backup's hook in service ${hook.service} ${Running ? `ran past ${timeout} s` : `exited ${ExitCode}`}`,
      "hook_failed",
    )
}

/** What a backup's intent keeps (lib/data/intents.ts): the containers it stops. */
export interface StopIntent {
  containers: string[]
}

/**
 * Runs `fn` with the stack's running containers stopped, and starts them again after, whatever
 * happened. The intent written first (in `dataDir`) has a start after a crash start them again
 * (`startStopped`); it stays when starting them failed here, for the next start to try again.
 */
export async function whileStopped<T>(
  engine: Engine,
  dataDir: string,
  stack: string,
  fn: () => Promise<T>,
): Promise<T> {
  const ids = (await running(engine, stack)).map((c) => c.Id)
  const intent = beginIntent<StopIntent>(dataDir, "backup.stop", stack, { containers: ids })
  try {
    for (const id of ids) await engine.containerAction(id, "stop")
    crashPoint("backup.stopped")
    return await fn()
  } finally {
    await startStopped(engine, ids).then(
      () => endIntent(dataDir, intent),
      () => {},
    )
  }
}

/** Starts the containers a backup stopped (one gone since is left); the number started. Throws the first failure after trying each. */
export async function startStopped(engine: Engine, ids: string[]): Promise<number> {
  let started = 0
  let failure: unknown
  for (const id of ids)
    await engine.containerAction(id, "start").then(
      () => started++,
      (err) => {
        // Gone since, or running already (304): nothing to start.
        if (!isDomainError(err, "not_found") && !(isDomainError(err) && err.code === "not_modified")) failure ??= err
      },
    )
  if (failure) throw failure
  return started
}
