// A terminal on the host: a login shell as the configured user, in a pseudo-terminal that a worker
// process holds (pty-worker.ts), bridged to a WebSocket as the container shell is (binary frames both
// ways, a text frame {"type":"resize","cols":C,"rows":R}, any other text typed). A session without
// a keystroke for `idleSeconds` is closed; closing the socket (or the shell ending, or the worker
// dying) ends the worker, which kills the shell's whole process tree. With `transcripts`, what the
// terminal showed goes to a file of its own there (mode 0600).
import { closeSync, constants as C, mkdirSync, openSync, writeSync } from "node:fs"
import { userInfo } from "node:os"
import { join } from "node:path"
import { randomBytes } from "node:crypto"
import { resizeMessage, type TerminalSize } from "../engine/shell.ts"
import { notFound, refused } from "../errors/errors.ts"
import type { Peer, SocketSession } from "../http/socket.ts"
import { encodeFrame, FrameReader } from "../http/worker-frames.ts"
import type { FromWorker, ToWorker } from "./pty-worker.ts"

export interface HostShellConfig {
  /** The user the shell logs in as; undefined: the terminal is off. */
  user?: string
  /** Seconds without a keystroke before a session is closed. */
  idleSeconds: number
  /** A folder for each session's transcript, when set. */
  transcripts?: string
}

/** The address the service listens on is loopback only (127.0.0.0/8, ::1, localhost). */
export const loopbackOnly = (host: string) => /^(127\.\d+\.\d+\.\d+|::1|\[::1\]|localhost)$/i.test(host)

/**
 * Whether a host terminal may be opened: it is on, and sign-in is on or nobody but this host reaches
 * the service. The route's role (admin) does the rest while sign-in is on.
 */
export function checkHostShell(config: HostShellConfig, signIn: boolean, listenHost: string): void {
  if (!config.user)
    throw notFound("the host terminal is off: SVC_HOST_SHELL names the user it logs in as", "host_shell_off")
  if (!signIn && !loopbackOnly(listenHost))
    throw refused(
      "the host terminal needs sign-in (SVC_AUTH) while the service listens beyond loopback",
      "host_shell_needs_sign_in",
    )
}

const SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

/** The command that logs `user` in: runuser as root, else the service's own user's login shell. */
export function loginCommand(user: string): string[] {
  const me = userInfo()
  if (me.uid === 0) return [Bun.which("runuser", { PATH: SYSTEM_PATH }) ?? "runuser", "--login", user]
  if (me.username !== user)
    throw refused(
      `the service runs as ${me.username}, so the host terminal can log in as ${me.username} only`,
      "host_shell_user",
    )
  return [me.shell || "/bin/sh", "-l"]
}

/** How the worker is started: this Bun running pty-worker.ts, or a compiled binary as itself (HM_PTY_WORKER=1, server.ts). */
function workerCommand(): { cmd: string[]; env: Record<string, string> } {
  if (import.meta.url.startsWith("file:///$bunfs/")) return { cmd: [process.execPath], env: { HM_PTY_WORKER: "1" } }
  return { cmd: [process.execPath, new URL("./pty-worker.ts", import.meta.url).pathname], env: {} }
}

/** A transcript file of its own in `dir`, or undefined. */
function transcriptFile(dir: string | undefined, who: string): number | undefined {
  if (!dir) return undefined
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const name = `${new Date().toISOString().replace(/[:.]/g, "-")}-${who.replace(/[^\w.-]/g, "_")}-${randomBytes(4).toString("hex")}.log`
  return openSync(join(dir, name), C.O_WRONLY | C.O_CREAT | C.O_EXCL | C.O_APPEND | C.O_NOFOLLOW, 0o600)
}

/** Opens a host terminal for `who` (its transcript's name) and bridges it to the WebSocket. */
export function openHostShell(
  config: HostShellConfig,
  who: string,
  size: TerminalSize = { cols: 80, rows: 24 },
): SocketSession {
  const command = loginCommand(config.user!)
  const { cmd, env } = workerCommand()
  const worker = Bun.spawn(cmd, {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "inherit",
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env },
  })
  const toWorker = (m: ToWorker, payload?: Uint8Array) => {
    try {
      worker.stdin.write(encodeFrame(m, payload))
      worker.stdin.flush()
    } catch {}
  }
  const start: ToWorker = {
    t: "start",
    command,
    ...size,
    cwd: "/",
    env: { TERM: "xterm-256color", LANG: process.env.LANG ?? "C.UTF-8", PATH: SYSTEM_PATH },
  }
  toWorker(start)
  const transcript = transcriptFile(config.transcripts, who)
  let peer: Peer | undefined
  let closed = false
  let idle: ReturnType<typeof setTimeout> | undefined
  let drained: (() => void) | undefined
  const reader = worker.stdout.getReader()

  const finish = (code: number, reason: string) => {
    if (closed) return
    closed = true
    clearTimeout(idle)
    toWorker({ t: "close" })
    worker.stdin.end()
    // The worker kills the tree and leaves; one that does not is killed after a grace.
    const grace = setTimeout(() => worker.kill("SIGKILL"), 10_000)
    void worker.exited.finally(() => clearTimeout(grace))
    if (transcript !== undefined) closeSync(transcript)
    peer?.close(code, reason)
  }
  const awake = () => {
    clearTimeout(idle)
    idle = setTimeout(() => finish(4000, `idle for ${config.idleSeconds} s`), config.idleSeconds * 1000)
  }

  async function pump() {
    const frames = new FrameReader()
    let exit: number | null = null
    for (;;) {
      const next = await reader.read().catch(() => ({ done: true as const, value: undefined }))
      if (next.done || closed) break
      for (const { header, payload } of frames.push(next.value)) {
        const m = header as FromWorker
        if (m.t === "exit") exit = m.code
        if (m.t !== "out") continue
        if (transcript !== undefined) writeSync(transcript, payload)
        if (peer!.send(payload) === -1) await new Promise<void>((r) => (drained = r))
      }
    }
    finish(1000, exit === null ? "shell ended" : `exit ${exit}`)
  }

  return {
    open(p) {
      peer = p
      awake()
      void pump()
    },
    message(data) {
      const resize = typeof data === "string" ? resizeMessage(data) : undefined
      if (resize) return toWorker({ t: "resize", ...resize })
      awake()
      toWorker({ t: "in" }, typeof data === "string" ? new TextEncoder().encode(data) : data)
    },
    drain() {
      const resume = drained
      drained = undefined
      resume?.()
    },
    close: () => finish(1000, ""),
  }
}
