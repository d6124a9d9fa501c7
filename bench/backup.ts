// bench/backup: a stack with a 1 GiB volume backed up through the service into a fresh restic
// repository and restored from it (stack and volume deleted first), against restic by hand in the
// same run: `restic backup` of the volume's folder on the host and `restic restore` of that snapshot
// into an empty folder, each into a fresh repository of its own. Prints the ratios of throughputs
// (target: at least 0.8), and the pieces the service made: volumes/<volume> when restic read the
// volume's folder itself (the engine proved local), volumes/<volume>.tar for the tar stream. Run: bun bench/backup.ts [GiB]   (as root, like the tests)
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { dockerEngine, type Engine } from "#lib/engine/client.ts"
import { startService, type Service } from "../tests/support/service.ts"
import { startEngine, type BenchEngine } from "./support.ts"

const GiB = 1024 ** 3
const size = Number(process.argv[2] ?? 1) * GiB
const IMAGE = "svc-test/busybox:latest"
const ROUNDS = 3
const PASSWORD = "bench-password"

async function call(url: string, method: string, body?: unknown) {
  const res = await fetch(url, {
    method,
    ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  })
  const json = (await res.json()) as any
  if (!res.ok) throw new Error(`${url}: ${res.status} ${JSON.stringify(json)}`)
  return json
}

function restic(repository: string, args: string[]): void {
  const run = Bun.spawnSync(["restic", ...args], {
    env: { ...process.env, RESTIC_REPOSITORY: repository, RESTIC_PASSWORD: PASSWORD },
    stdout: "ignore",
  })
  if (run.exitCode !== 0) throw new Error(`restic ${args[0]}: ${run.stderr.toString()}`)
}

async function seconds(fn: () => unknown): Promise<number> {
  const t0 = performance.now()
  await fn()
  return (performance.now() - t0) / 1000
}

let engine: BenchEngine | undefined
let svc: Service | undefined
const dir = mkdtempSync(join(tmpdir(), "hm-bench-backup-"))
try {
  engine = startEngine("bk")
  const eng: Engine = dockerEngine(engine.host)
  svc = await startService({ DOCKER_HOST: engine.host, SVC_TRANSFER_IMAGE: IMAGE })
  const api = `${svc.url}/api`
  const compose = `services:\n  app:\n    image: ${IMAGE}\n    command: ["sleep", "3600"]\n    volumes: [data:/data]\nvolumes:\n  data:\n`
  await call(`${api}/stacks`, "POST", { name: "bench", content: compose })
  const files = Math.ceil(size / (64 * 1024 * 1024))
  console.log(`filling bench_data with ${files} files of 64 MiB`)
  const { Id } = await eng.createContainer({
    Image: IMAGE,
    Cmd: ["sh", "-c", `for i in $(seq 1 ${files}); do head -c 67108864 /dev/urandom > /v/f$i; done`],
    HostConfig: { NetworkMode: "none", Mounts: [{ Type: "volume", Source: "bench_data", Target: "/v" }] },
  })
  await eng.containerAction(Id, "start")
  await eng.waitContainer(Id)
  await eng.removeContainer(Id, { force: true })
  const mountpoint = ((await eng.inspectVolume("bench_data")) as { Mountpoint: string }).Mountpoint

  const times = {
    handBackup: [] as number[],
    handRestore: [] as number[],
    backup: [] as number[],
    restore: [] as number[],
  }
  for (let round = 1; round <= ROUNDS; round++) {
    const hand = join(dir, `hand-${round}`)
    restic(hand, ["init"])
    times.handBackup.push(await seconds(() => restic(hand, ["backup", "--quiet", mountpoint])))
    times.handRestore.push(
      await seconds(() => restic(hand, ["restore", "latest", "--target", join(dir, `restored-${round}`)])),
    )
    rmSync(join(dir, `restored-${round}`), { recursive: true, force: true })
    rmSync(hand, { recursive: true, force: true })

    const repo = `r${round}`
    await call(`${api}/backups/repos`, "POST", {
      name: repo,
      repository: join(dir, repo),
      password: PASSWORD,
      init: true,
    })
    let pieces: string[] = []
    times.backup.push(
      await seconds(
        async () =>
          (pieces = (await call(`${api}/backups/${repo}/bench/run`, "POST")).pieces.map(
            (p: { path: string }) => p.path,
          )),
      ),
    )
    // The restore brings back the volume it needs: the stack and its volume go first.
    await call(`${api}/stacks/bench?volumes=true`, "DELETE")
    times.restore.push(await seconds(() => call(`${api}/backups/${repo}/bench/restore`, "POST", {})))
    await call(`${api}/backups/repos/${repo}`, "DELETE")
    rmSync(join(dir, repo), { recursive: true, force: true })
    const [hb, hr, b, r] = [times.handBackup, times.handRestore, times.backup, times.restore].map((t) =>
      t.at(-1)!.toFixed(2),
    )
    console.log(
      `round ${round}: by hand backup ${hb} s, restore ${hr} s; through the service backup ${b} s, restore ${r} s (pieces ${pieces.join(", ")})`,
    )
  }
  const best = (xs: number[]) => Math.min(...xs)
  const mibps = (s: number) => (size / (1024 * 1024) / s).toFixed(0)
  for (const [what, service, hand] of [
    ["backup", times.backup, times.handBackup],
    ["restore", times.restore, times.handRestore],
  ] as const)
    console.log(
      `${what}: service ${mibps(best(service))} MiB/s vs restic by hand ${mibps(best(hand))} MiB/s -> ratio ${(best(hand) / best(service)).toFixed(2)} (target >= 0.8)`,
    )
} finally {
  await svc?.stop()
  engine?.stop()
  rmSync(dir, { recursive: true, force: true })
}
