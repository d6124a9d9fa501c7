// Starts the real service as its own process, for tests that need real HTTP, SSE and WebSockets.
// Every answer it gives is checked against its route's response schema (SVC_RESPONSE_DRIFT_LOG):
// stopping a service whose answers drifted from the API contract fails with what drifted.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { defaultKeyFile, parseKey, readKeyFile } from "#lib/data/secret-key.ts"
import { unseal } from "#lib/data/sealed.ts"

export interface Service {
  url: string
  port: number
  dataDir: string
  /** The service's secret key file (beside its data directory unless SVC_SECRET_KEY_FILE says otherwise). */
  keyFile: string
  proc: ReturnType<typeof Bun.spawn>
  /** A file of its data directory as the service reads it: opened with its key when sealed. */
  opened(path: string): string
  stop(): Promise<void>
}

const root = join(import.meta.dir, "../..")

export async function freePort(): Promise<number> {
  const s = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } })
  const port = s.port
  s.stop(true)
  return port
}

/** Whether `url` answers 2xx, asked from the network namespace `netns` when given. */
async function answers(url: string, netns?: string): Promise<boolean> {
  if (!netns)
    return fetch(url).then(
      (r) => r.ok,
      () => false,
    )
  return (await Bun.spawn(["ip", "netns", "exec", netns, "curl", "-sf", "-o", "/dev/null", url]).exited) === 0
}

export async function startService(
  env: Record<string, string> = {},
  opts: {
    dataDir?: string
    port?: number
    cmd?: string[] /** listen address (default 127.0.0.1) */
    host?: string /** the network namespace it runs in (its url answers only there) */
    netns?: string
  } = {},
): Promise<Service> {
  const port = opts.port ?? (await freePort())
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), "hm-svc-"))
  const driftDir = mkdtempSync(join(tmpdir(), "hm-drift-"))
  const driftLog = join(driftDir, "drift.log")
  const proc = Bun.spawn(
    [...(opts.netns ? ["ip", "netns", "exec", opts.netns] : []), ...(opts.cmd ?? ["bun", join(root, "server.ts")])],
    {
      env: {
        ...process.env,
        SVC_ADDR: `${opts.host ?? "127.0.0.1"}:${port}`,
        SVC_DATA: dataDir,
        SVC_RESPONSE_DRIFT_LOG: driftLog,
        ...env,
      },
      stdout: "pipe",
      stderr: "pipe",
    },
  )
  const url = `http://${opts.host ?? "127.0.0.1"}:${port}`
  // A loaded machine can take seconds to start a Bun process: wait up to 30 s, then say so.
  for (let i = 0; ; i++) {
    if (proc.exitCode !== null) throw new Error(`service exited: ${await new Response(proc.stderr).text()}`)
    const ok = await answers(`${url}/api/health`, opts.netns)
    if (ok) break
    if (i === 600) {
      proc.kill()
      throw new Error(`the service did not answer /api/health within 30 s: ${await new Response(proc.stderr).text()}`)
    }
    await Bun.sleep(50)
  }
  const keyFile = env.SVC_SECRET_KEY_FILE ?? defaultKeyFile(dataDir)
  return {
    url,
    port,
    dataDir,
    keyFile,
    proc,
    opened: (path) =>
      unseal(readFileSync(path, "utf8"), path, {
        current: env.SVC_SECRET_KEY ? parseKey(env.SVC_SECRET_KEY, "SVC_SECRET_KEY") : readKeyFile(keyFile)!,
        previous: [],
      }),
    async stop() {
      proc.kill()
      await proc.exited
      if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true })
      if (!opts.dataDir && !env.SVC_SECRET_KEY_FILE) rmSync(keyFile, { force: true })
      const drifted = existsSync(driftLog) ? readFileSync(driftLog, "utf8").trim() : ""
      rmSync(driftDir, { recursive: true, force: true })
      if (drifted) throw new Error(`answers off their route's response schema:\n${drifted}`)
    },
  }
}
