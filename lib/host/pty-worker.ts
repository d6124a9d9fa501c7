// The host terminal's worker process: one per session, so that bun-pty's native code runs outside the
// service (a crash there ends one session). It speaks frames (lib/http/worker-frames.ts) on its stdin and
// stdout: `start` opens a pseudo-terminal running the login command, `in` carries keystrokes,
// `resize` the size, `close` ends it; it answers `out` with the terminal's bytes and `exit` with the
// shell's code. It makes itself its descendants' subreaper, so a process the shell started that left
// its session (nohup, setsid, a double fork) is still its descendant, and at the end, asked or not
// (its stdin closed, SIGTERM, the shell gone), every descendant gets SIGHUP, then SIGKILL.
import { readdirSync, readFileSync } from "node:fs"
import { encodeFrame, FrameReader } from "../http/worker-frames.ts"

export interface Start {
  t: "start"
  command: string[]
  cols: number
  rows: number
  env: Record<string, string>
  cwd: string
}
export type ToWorker = Start | { t: "in" } | { t: "resize"; cols: number; rows: number } | { t: "close" }
export type FromWorker = { t: "out" } | { t: "exit"; code: number | null }

const PR_SET_PDEATHSIG = 1
const PR_SET_CHILD_SUBREAPER = 36
const SIGTERM = 15

/** prctl(2) through libc; false where it cannot be called (no glibc). */
function prctl(option: number, arg: number): boolean {
  try {
    const { dlopen, FFIType } = require("bun:ffi") as typeof import("bun:ffi")
    const libc = dlopen("libc.so.6", {
      prctl: { args: [FFIType.i32, FFIType.u64, FFIType.u64, FFIType.u64, FFIType.u64], returns: FFIType.i32 },
    })
    return libc.symbols.prctl(option, arg, 0, 0, 0) === 0
  } catch {
    return false
  }
}

/**
 * Every live process below `root`, from /proc (the state and the parent are the fields after the
 * command's closing parenthesis). A zombie is dead already: it is left out, and is reaped once this
 * process has left (its parent then).
 */
export function descendants(root: number): number[] {
  const children = new Map<number, number[]>()
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue
    let stat: string
    try {
      stat = readFileSync(`/proc/${name}/stat`, "latin1")
    } catch {
      continue
    }
    const [state, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    if (state === "Z") continue
    const parent = Number(ppid)
    children.set(parent, [...(children.get(parent) ?? []), Number(name)])
  }
  const found: number[] = []
  for (let i = 0, queue = [root]; i < queue.length; i++)
    for (const child of children.get(queue[i]!) ?? []) {
      found.push(child)
      queue.push(child)
    }
  return found
}

const signal = (pid: number, sig: NodeJS.Signals) => {
  try {
    process.kill(pid, sig)
  } catch {}
}

/** SIGHUP to every descendant (as a hangup would), then SIGKILL until none is left. */
async function killTree(): Promise<void> {
  for (const pid of descendants(process.pid)) signal(pid, "SIGHUP")
  for (let round = 0; round < 50; round++) {
    await Bun.sleep(round ? 100 : 300)
    const left = descendants(process.pid)
    if (!left.length) return
    for (const pid of left) signal(pid, "SIGKILL")
  }
}

export async function serve(): Promise<void> {
  prctl(PR_SET_CHILD_SUBREAPER, 1)
  prctl(PR_SET_PDEATHSIG, SIGTERM)
  const out = Bun.stdout.writer()
  let pty: import("bun-pty").IPty | undefined
  let ending: Promise<void> | undefined
  const end = (code: number | null) =>
    (ending ??= (async () => {
      await killTree()
      send({ t: "exit", code })
      await Promise.resolve(out.end()).catch(() => {})
      process.exit(0)
    })())
  // A write to a service that is gone (killed: its end of the pipe closed) ends the session, tree and
  // all, instead of failing the worker with the tree left behind.
  const gone = () => void end(null)
  const send = (header: FromWorker, payload?: Uint8Array) => {
    try {
      out.write(encodeFrame(header, payload))
      const flushed = out.flush()
      if (flushed instanceof Promise) flushed.catch(gone)
    } catch {
      gone()
    }
  }
  process.on("SIGTERM", () => void end(null))
  const encoder = new TextEncoder()
  const input = new TextDecoder()
  const reader = new FrameReader()
  for await (const chunk of Bun.stdin.stream()) {
    for (const { header, payload } of reader.push(chunk)) {
      const m = header as ToWorker
      if (m.t === "start" && !pty) {
        const { spawn } = await import("bun-pty")
        const [file, ...args] = m.command
        try {
          pty = spawn(file!, args, { name: "xterm-256color", cols: m.cols, rows: m.rows, cwd: m.cwd, env: m.env })
        } catch (err) {
          send(
            { t: "out" },
            encoder.encode(`the login could not start (${m.command.join(" ")}): ${(err as Error).message}\r\n`),
          )
          return void end(127)
        }
        pty.onData((data) => send({ t: "out" }, encoder.encode(data)))
        pty.onExit(({ exitCode }) => void end(exitCode))
      } else if (m.t === "in") pty?.write(input.decode(payload, { stream: true }))
      else if (m.t === "resize") pty?.resize(m.cols, m.rows)
      else if (m.t === "close") return void end(null)
    }
  }
  // The service went away.
  await end(null)
}

if (import.meta.main) await serve()
