// bench/volume-files: a volume's files through the service against what a user would run by hand, in
// the same run, on a private engine in its own network namespace:
// - a 1 GiB file downloaded with curl from GET /api/volumes/{v}/files/content against `docker cp`
//   out of a container that mounts the volume (target: at least 0.8 of its throughput);
// - the same file uploaded with curl -T to PUT .../content against `docker cp` into it (at least 0.8);
// - the first page of a folder of 100,000 files (GET .../files?path=many) against `ls -l` of that
//   folder through `docker run` (target: at most 1.5 of its time).
// Best of ROUNDS each; the service's peak RSS during the transfers is printed too.
// Run as root, like the tests: bun bench/volume-files.ts [GiB]   (BENCH_FLAVOURS picks the engines)
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { dockerEngine } from "#lib/engine/client.ts"
import { startService } from "../tests/support/service.ts"
import { benchFlavours, rssMiB, startEngine } from "./support.ts"

const GiB = 1024 ** 3
const size = Number(process.argv[2] ?? 1) * GiB
const IMAGE = "svc-test/busybox:latest"
const ROUNDS = 3

/** Runs a command to its end, failing loudly; its seconds. */
async function timed(cmd: string[], env: Record<string, string> = {}): Promise<number> {
  const t0 = performance.now()
  const run = Bun.spawn(cmd, { env: { ...process.env, ...env }, stdout: "ignore", stderr: "pipe" })
  if ((await run.exited) !== 0) throw new Error(`${cmd.join(" ")}: ${await new Response(run.stderr).text()}`)
  return (performance.now() - t0) / 1000
}

const best = async (fn: () => Promise<number>) => {
  const times: number[] = []
  for (let i = 0; i < ROUNDS; i++) times.push(await fn())
  return Math.min(...times)
}

for (const flavour of benchFlavours()) {
  const engine = startEngine("files", flavour)
  const work = mkdtempSync(join(tmpdir(), "hm-bench-files-"))
  try {
    // The docker CLI of the engine's own flavour (the current engine refuses the Debian 12 CLI's API).
    const cli =
      flavour === "current"
        ? join(Bun.spawnSync(["bash", "scripts/current-engine.sh"]).stdout.toString().trim(), "usr/bin/docker")
        : "docker"
    const docker = (...args: string[]) => [cli, "-H", engine.host, ...args]
    const e = dockerEngine(engine.host)
    await e.createVolume("bench")
    // A container that mounts the volume, for docker cp (it never needs to run).
    const { Id } = await e.createContainer({
      Image: IMAGE,
      Cmd: ["true"],
      HostConfig: { Mounts: [{ Type: "volume", Source: "bench", Target: "/v" }] },
    })
    const fill = await e.createContainer({
      Image: IMAGE,
      Cmd: [
        "sh",
        "-c",
        `head -c ${size} /dev/urandom > /v/big && mkdir /v/many && cd /v/many && seq -w 1 100000 | xargs touch`,
      ],
      HostConfig: { Mounts: [{ Type: "volume", Source: "bench", Target: "/v" }] },
    })
    await e.containerAction(fill.Id, "start")
    await e.waitContainer(fill.Id)
    const svc = await startService({ DOCKER_HOST: engine.host, SVC_TRANSFER_IMAGE: IMAGE })
    const base = `${svc.url}/api/volumes/bench/files`
    const local = join(work, "big")
    let peak = 0
    const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(svc.proc.pid))), 20)
    try {
      const cpOut = await best(() => timed(docker("cp", `${Id}:/v/big`, local)))
      const down = await best(() => timed(["curl", "-sf", "-o", local, `${base}/content?path=big`]))
      const cpIn = await best(() => timed(docker("cp", local, `${Id}:/v/by-cp`)))
      const up = await best(() =>
        timed(["curl", "-sf", "-o", "/dev/null", "-T", local, `${base}/content?path=by-service`]),
      )
      clearInterval(sampler)
      const ls = await best(() => timed(docker("run", "--rm", "-v", "bench:/v", IMAGE, "ls", "-l", "/v/many")))
      const list = await best(() => timed(["curl", "-sf", "-o", "/dev/null", `${base}?path=many&limit=500`]))
      const mib = size / 2 ** 20
      console.log(
        `[${flavour}] download ${(mib / down).toFixed(0)} MiB/s vs docker cp ${(mib / cpOut).toFixed(0)} MiB/s: ${(cpOut / down).toFixed(2)}x (target >= 0.8)`,
      )
      console.log(
        `[${flavour}] upload ${(mib / up).toFixed(0)} MiB/s vs docker cp ${(mib / cpIn).toFixed(0)} MiB/s: ${(cpIn / up).toFixed(2)}x (target >= 0.8)`,
      )
      console.log(
        `[${flavour}] listing 100,000 entries ${list.toFixed(2)} s vs ls -l through docker run ${ls.toFixed(2)} s: ${(list / ls).toFixed(2)}x (target <= 1.5)`,
      )
      console.log(`[${flavour}] the service's peak RSS during the transfers: ${peak.toFixed(1)} MiB`)
    } finally {
      clearInterval(sampler)
      await svc.stop()
    }
  } finally {
    engine.stop()
    rmSync(work, { recursive: true, force: true })
  }
}
