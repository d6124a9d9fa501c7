// The container shell: an interactive `sh` with a TTY in the container, bridged to a WebSocket.
// Binary frames carry keystrokes in and PTY bytes out; a text frame holding
// {"type":"resize","cols":C,"rows":R} resizes the terminal, any other text frame is typed as input.
import type { Engine, ExecSession } from "./client.ts"
import type { Peer, SocketSession } from "../http/socket.ts"
import { conflict } from "../errors/errors.ts"

/**
 * Typed when the client goes: the engine keeps an exec running after its client disconnects, so a
 * closed tab would leave its `sh` behind (hundreds under the load bench, each holding a PTY, until
 * the host has none left and no shell starts anywhere). Ctrl-C ends what runs in the foreground,
 * Ctrl-D then ends the shell, as a hangup would. It is typed twice, HANG_UP_AGAIN_MS apart: a line
 * editor that takes the terminal back between two commands flushes what was typed ahead.
 */
export const HANG_UP = "\x03\x04"
export const HANG_UP_AGAIN_MS = 250

/** Detach keys nobody types by accident, so Ctrl-P Ctrl-Q reaches the shell instead of ending it. */
export const DETACH_KEYS = "ctrl-^,ctrl-@,ctrl-_"

export interface TerminalSize {
  cols: number
  rows: number
}

/** A resize control message, or undefined for text that is input. */
export function resizeMessage(text: string): TerminalSize | undefined {
  if (!text.startsWith("{")) return undefined
  try {
    const m = JSON.parse(text)
    const ok = (n: unknown) => Number.isInteger(n) && (n as number) > 0 && (n as number) < 10_000
    return m?.type === "resize" && ok(m.cols) && ok(m.rows) ? { cols: m.cols, rows: m.rows } : undefined
  } catch {
    return undefined
  }
}

/** Starts `sh` in a running container; fails with 404/409 before the WebSocket is accepted. */
export async function openShell(engine: Engine, id: string, size?: TerminalSize): Promise<SocketSession> {
  const info = await engine.inspectContainer(id)
  if (!info.State.Running || info.State.Paused)
    throw conflict(`container ${info.Name.replace(/^\//, "")} is ${info.State.Status}, not running`)
  const exec = await engine.exec(info.Id, {
    cmd: ["sh"],
    tty: true,
    detachKeys: DETACH_KEYS,
    env: ["TERM=xterm-256color"],
  })
  const resize = (s: TerminalSize) => engine.execResize(exec.id, s.rows, s.cols).catch(() => {})
  if (size) await resize(size)
  return shellSession(exec, resize, () =>
    engine.execInspect(exec.id).then(
      (i) => i.ExitCode,
      () => null,
    ),
  )
}

/**
 * Bridges an exec to a WebSocket peer. Output is read only while the peer keeps up: when `send`
 * reports backpressure (-1), reading pauses until the socket drains. Either side closing closes the other.
 */
export function shellSession(
  exec: ExecSession,
  resize: (s: TerminalSize) => unknown,
  exitCode: () => Promise<number | null>,
): SocketSession {
  const reader = exec.output.getReader()
  let peer: Peer | undefined
  let closed = false
  let drained: (() => void) | undefined
  const wake = () => {
    const resume = drained
    drained = undefined
    resume?.()
  }

  async function pump() {
    for (;;) {
      const next = await reader.read().catch(() => ({ done: true as const, value: undefined }))
      if (next.done || closed) break
      if (peer!.send(next.value) === -1) await new Promise<void>((r) => (drained = r))
    }
    if (closed) return
    closed = true
    exec.close()
    const code = await exitCode()
    peer!.close(1000, code === null ? "shell ended" : `exit ${code}`)
  }

  return {
    open(p) {
      peer = p
      void pump()
    },
    message(data) {
      const size = typeof data === "string" ? resizeMessage(data) : undefined
      if (size) resize(size)
      else exec.write(data)
    },
    drain: wake,
    close() {
      if (closed) return
      closed = true
      exec.write(HANG_UP)
      setTimeout(() => {
        exec.write(HANG_UP)
        exec.close()
        reader.cancel().catch(() => {})
      }, HANG_UP_AGAIN_MS)
      wake()
    },
  }
}
