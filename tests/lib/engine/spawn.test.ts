import { afterAll, expect, test } from "bun:test"
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { spawnBounded } from "#lib/engine/spawn.ts"

const dir = mkdtempSync(join(tmpdir(), "hm-spawn-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Whether a process runs: neither gone nor a zombie waiting to be reaped. */
const alive = (pid: number) => {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"))
  } catch {
    return false
  }
}

/** Which of `pids` still run, once the kernel has had a moment to deliver a signal sent to them all. */
async function stillRunning(pids: number[]): Promise<number[]> {
  for (let i = 0; i < 100 && pids.some(alive); i++) await Bun.sleep(20)
  return pids.filter(alive)
}

/** A shell that writes its pid and its child's, then waits on the child; `trap` set to ignore SIGTERM when asked. */
function family(name: string, ignoreTerm = false) {
  const pids = join(dir, name)
  const script = `${ignoreTerm ? "trap '' TERM; " : ""}sleep 60 & echo $$ $! > ${pids}; echo started; wait`
  return { cmd: ["sh", "-c", script], pids: () => readFileSync(pids, "utf8").trim().split(" ").map(Number) }
}

const started = async (stdout: ReadableStream<Uint8Array>) => {
  for await (const _ of stdout) return
}

test("a program that ends in time is left alone", async () => {
  const run = spawnBounded(["sh", "-c", "echo hi; exit 3"], { stdout: "pipe" }, { timeout: 5 })
  expect([await new Response(run.proc.stdout).text(), await run.exited, run.stopped()]).toEqual(["hi\n", 3, undefined])
})

test("past its deadline the program and what it started are stopped", async () => {
  const f = family("timeout")
  const run = spawnBounded(f.cmd, { stdout: "pipe" }, { timeout: 1 })
  await started(run.proc.stdout)
  const [shell, child] = f.pids()
  expect([alive(shell!), alive(child!)]).toEqual([true, true])
  expect(await run.exited).toBe(143)
  expect(run.stopped()).toBe("timeout")
  expect(await stillRunning([shell!, child!])).toEqual([])
})

test("a program that ignores SIGTERM gets SIGKILL after the grace period", async () => {
  const f = family("stubborn", true)
  const run = spawnBounded(f.cmd, { stdout: "pipe" }, { timeout: 1, graceMs: 300 })
  await started(run.proc.stdout)
  const [shell, child] = f.pids()
  expect(await run.exited).toBe(137)
  expect(run.stopped()).toBe("timeout")
  expect(await stillRunning([shell!, child!])).toEqual([])
})

test("an aborted signal stops the program at once, before or while it runs", async () => {
  const f = family("aborted")
  const abort = new AbortController()
  const run = spawnBounded(f.cmd, { stdout: "pipe" }, { timeout: 60, signal: abort.signal })
  await started(run.proc.stdout)
  abort.abort()
  expect(await run.exited).toBe(143)
  expect(run.stopped()).toBe("aborted")
  expect(await stillRunning(f.pids())).toEqual([])
  const early = spawnBounded(["sleep", "60"], {}, { timeout: 60, signal: AbortSignal.abort() })
  await early.exited
  expect(early.stopped()).toBe("aborted")
})

test("what still runs when the service exits goes with it", async () => {
  const f = family("exiting")
  const script = `import { spawnBounded } from "#lib/engine/spawn.ts"
const run = spawnBounded(${JSON.stringify(f.cmd)}, { stdout: "pipe" }, { timeout: 60 })
for await (const _ of run.proc.stdout) break
process.exit(0)`
  const service = Bun.spawn(["bun", "-e", script], { cwd: join(import.meta.dir, "../../.."), stderr: "pipe" })
  expect([await service.exited, await new Response(service.stderr).text()]).toEqual([0, ""])
  expect(await stillRunning(f.pids())).toEqual([])
})

test("what runs when the service is killed (SIGKILL: no exit handler) is killed by its watchdog", async () => {
  const f = family("killed", true)
  const script = `import { spawnBounded } from "#lib/engine/spawn.ts"
const run = spawnBounded(${JSON.stringify(f.cmd)}, { stdout: "pipe" }, { timeout: 60 })
for await (const _ of run.proc.stdout) break
console.log("running")
await Bun.sleep(60_000)`
  const service = Bun.spawn(["bun", "-e", script], { cwd: join(import.meta.dir, "../../.."), stdout: "pipe" })
  await started(service.stdout)
  const pids = f.pids()
  expect(pids.filter(alive)).toEqual(pids)
  service.kill("SIGKILL")
  await service.exited
  expect(await stillRunning(pids)).toEqual([])
})

test("the watchdog leaves with the program it watches, and a missing program fails to spawn as before", async () => {
  const run = spawnBounded(["sh", "-c", "echo $$"], { stdout: "pipe" }, { timeout: 5 })
  const pid = Number((await new Response(run.proc.stdout).text()).trim())
  // The program is the process spawned (the watchdog's shell became it): its pid, its exit code.
  expect([pid, await run.exited]).toEqual([run.proc.pid, 0])
  const group = () =>
    Bun.spawnSync(["pgrep", "-g", String(pid)])
      .stdout.toString()
      .trim()
  for (let i = 0; i < 100 && group(); i++) await Bun.sleep(20)
  expect(group()).toBe("")
  expect(() => spawnBounded(["hm-no-such-program"], {}, { timeout: 5 })).toThrow(/not found/)
})

test("no process of a program that ended stays in its folder (a file system under it can be unmounted at once)", async () => {
  const folder = join(dir, "cwd")
  mkdirSync(folder)
  const inFolder = () =>
    readdirSync("/proc")
      .filter((pid) => /^\d+$/.test(pid))
      .filter((pid) => {
        try {
          return readlinkSync(`/proc/${pid}/cwd`) === folder
        } catch {
          return false
        }
      })
  const run = spawnBounded(["sleep", "0.2"], { cwd: folder }, { timeout: 5 })
  expect(inFolder()).toContain(String(run.proc.pid))
  expect(await run.exited).toBe(0)
  expect(inFolder()).toEqual([])
})
