// The processes of this host, read from /proc: a tool the service runs, found to be stopped or killed
// in the middle of its work.
import { readdirSync, readFileSync } from "node:fs"

/** The pid of a running `program` one of whose arguments ends with `marker` (a name only the test uses), if there is one. */
export function processOf(program: string, marker: string): number | undefined {
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")
      if (argv[0]?.split("/").at(-1) === program && argv.some((a) => a.endsWith(marker))) return Number(pid)
    } catch {
      // gone meanwhile
    }
  }
}

/** Waits for `processOf(program, marker)`, at most `ms`. */
export async function waitForProcess(program: string, marker: string, ms = 30_000): Promise<number> {
  for (const until = Date.now() + ms; Date.now() < until; await Bun.sleep(20)) {
    const pid = processOf(program, marker)
    if (pid) return pid
  }
  throw new Error(`no ${program} with an argument ending in ${marker} came within ${ms} ms`)
}

/** Whether a process is there and not a zombie (dead, waiting to be reaped). */
export function alive(pid: number): boolean {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"))
  } catch {
    return false
  }
}

/** The parent, its parent and so on up to pid 1. */
export function ancestors(pid: number): number[] {
  const up: number[] = []
  for (let at = pid; at > 1; ) {
    try {
      at = Number(readFileSync(`/proc/${at}/stat`, "utf8").split(") ")[1]!.split(" ")[1])
    } catch {
      break
    }
    up.push(at)
  }
  return up
}
