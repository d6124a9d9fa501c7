// Test hosts inside the private engine's network namespace: a real registry (Debian docker-registry)
// on the namespace's loopback, which that engine can push to and pull from, and a veth pair so that
// the test, in the host's namespace, reaches a service process running in there.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

export function netnsA(): string {
  const ns = process.env.TEST_NETNS_A
  if (!ns) throw new Error("integration tests need the private engines: run them with `bash scripts/test.sh`")
  return ns
}

async function run(cmd: string[]): Promise<void> {
  const proc = Bun.spawn(cmd, { stdout: "pipe", stderr: "pipe" })
  if ((await proc.exited) !== 0) throw new Error(`${cmd.join(" ")}: ${await new Response(proc.stderr).text()}`)
}

/** A /30 between the host and the namespace; `inside` is the namespace's address, `outside` the host's. */
export async function veth(ns: string): Promise<{ inside: string; outside: string; remove(): Promise<void> }> {
  const n = 1 + (process.pid % 250)
  const [host, peer] = [`hmh${process.pid % 100000}`, `hmp${process.pid % 100000}`]
  await run(["ip", "link", "add", host, "type", "veth", "peer", "name", peer])
  await run(["ip", "link", "set", peer, "netns", ns])
  await run(["ip", "addr", "add", `10.213.${n}.1/30`, "dev", host])
  await run(["ip", "link", "set", host, "up"])
  await run(["ip", "-n", ns, "addr", "add", `10.213.${n}.2/30`, "dev", peer])
  await run(["ip", "-n", ns, "link", "set", peer, "up"])
  return { inside: `10.213.${n}.2`, outside: `10.213.${n}.1`, remove: () => run(["ip", "link", "del", host]) }
}

export interface TestRegistry {
  /** host:port as the engine and the service in the namespace reach it. */
  host: string
  stop(): Promise<void>
}

/** docker-registry on the namespace's loopback, storage in a temp folder; waits until it listens. */
export async function startRegistry(ns: string): Promise<TestRegistry> {
  const dir = mkdtempSync(join(tmpdir(), "hm-registry-"))
  const port = 20000 + Math.floor(Math.random() * 20000)
  const config = join(dir, "config.yml")
  writeFileSync(
    config,
    `version: 0.1\nlog:\n  level: info\nstorage:\n  filesystem:\n    rootdirectory: ${dir}/data\n  delete:\n    enabled: true\nhttp:\n  addr: 127.0.0.1:${port}\n`,
  )
  const logFile = join(dir, "registry.log")
  const proc = Bun.spawn(["ip", "netns", "exec", ns, "docker-registry", "serve", config], {
    stdout: "ignore",
    stderr: Bun.file(logFile),
  })
  const log = () =>
    Bun.file(logFile)
      .text()
      .catch(() => "")
  for (let i = 0; i < 200 && !(await log()).includes("listening on") && proc.exitCode === null; i++) await Bun.sleep(25)
  if (!(await log()).includes("listening on")) throw new Error(`docker-registry did not start: ${await log()}`)
  return {
    host: `127.0.0.1:${port}`,
    async stop() {
      proc.kill()
      await proc.exited
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
