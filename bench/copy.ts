// bench/copy: a stack with a 1 GiB volume copied between two private engines (each in its own
// network namespace) through the service, against the raw baseline in the same run: the engine's
// own archive GET from one piped straight into an archive PUT on the other. Prints the ratio of
// throughputs (target: at least 0.8) and the services' peak RSS during the copy (target: under
// 120 MiB, flat in the volume size). Run: bun bench/copy.ts [GiB]   (as root, like the tests)
import { dockerEngine, type Engine } from "#lib/engine/client.ts"
import { startService, type Service } from "../tests/support/service.ts"
import { rssMiB, startEngine, type BenchEngine } from "./support.ts"

const GiB = 1024 ** 3
const size = Number(process.argv[2] ?? 1) * GiB
const IMAGE = "svc-test/busybox:latest"
const ROUNDS = 2

async function post(url: string, body: unknown) {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  })
  const json = (await res.json()) as any
  if (!res.ok) throw new Error(`${url}: ${res.status} ${JSON.stringify(json)}`)
  return json
}

async function withVolume<T>(
  engine: Engine,
  volume: string,
  cmd: string[],
  fn: (id: string) => Promise<T>,
): Promise<T> {
  const { Id } = await engine.createContainer({
    Image: IMAGE,
    Cmd: cmd,
    HostConfig: { NetworkMode: "none", Mounts: [{ Type: "volume", Source: volume, Target: "/v" }] },
  })
  try {
    return await fn(Id)
  } finally {
    await engine.removeContainer(Id, { force: true })
  }
}

/** Seconds `fn` takes, and the highest RSS (MiB) of each given process meanwhile, sampled every 20 ms. */
async function measure(pids: number[], fn: () => Promise<unknown>): Promise<{ seconds: number; peaks: number[] }> {
  const peaks = pids.map(() => 0)
  const sample = () => pids.forEach((pid, i) => (peaks[i] = Math.max(peaks[i]!, rssMiB(pid))))
  const timer = setInterval(sample, 20)
  const t0 = performance.now()
  try {
    await fn()
  } finally {
    clearInterval(timer)
  }
  sample()
  return { seconds: (performance.now() - t0) / 1000, peaks }
}

const engines: BenchEngine[] = []
const services: Service[] = []
try {
  engines.push(startEngine("cpa"), startEngine("cpb"))
  const [engA, engB] = engines.map((e) => dockerEngine(e.host)) as [Engine, Engine]
  for (const e of engines) services.push(await startService({ DOCKER_HOST: e.host, SVC_TRANSFER_IMAGE: IMAGE }))
  const [a, b] = services as [Service, Service]
  const { token } = await post(`${a.url}/api/cluster/token`, {})
  await post(`${b.url}/api/cluster/join`, { control_plane_url: a.url, token, name: "b", advertise: b.url })

  const compose = `services:\n  app:\n    image: ${IMAGE}\n    command: ["sleep", "3600"]\n    volumes: [data:/data]\nvolumes:\n  data:\n`
  await post(`${a.url}/api/stacks`, { name: "bench", content: compose })
  const files = Math.ceil(size / (64 * 1024 * 1024))
  console.log(`filling bench_data with ${files} files of 64 MiB`)
  await withVolume(
    engA,
    "bench_data",
    ["sh", "-c", `for i in $(seq 1 ${files}); do head -c 67108864 /dev/urandom > /v/f$i; done`],
    async (id) => {
      await engA.containerAction(id, "start")
      await engA.waitContainer(id)
    },
  )

  const baseline = () =>
    withVolume(engA, "bench_data", ["true"], (src) =>
      withVolume(engB, "baseline", ["true"], async (dst) =>
        engB.putArchive(dst, "/v", await engA.getArchive(src, "/v/.")),
      ),
    )
  const copy = () => post(`${a.url}/api/stacks/bench/copy`, { to: "b" })
  const reset = async () => {
    await fetch(`${b.url}/api/stacks/bench`, { method: "DELETE" })
    for (const v of ["bench_data", "baseline"]) await engB.removeVolume(v, { force: true }).catch(() => {})
  }

  const raw: number[] = []
  const service: number[] = []
  const idle = services.map((s) => rssMiB(s.proc.pid))
  const peaks = services.map(() => 0)
  for (let round = 1; round <= ROUNDS; round++) {
    await reset()
    raw.push((await measure([], baseline)).seconds)
    await reset()
    const m = await measure(
      services.map((s) => s.proc.pid),
      copy,
    )
    service.push(m.seconds)
    m.peaks.forEach((p, i) => (peaks[i] = Math.max(peaks[i]!, p)))
    console.log(`round ${round}: raw ${raw.at(-1)!.toFixed(2)} s, through the service ${m.seconds.toFixed(2)} s`)
  }
  const mibps = (s: number) => size / (1024 * 1024) / s
  const best = (xs: number[]) => Math.min(...xs)
  console.log(
    `throughput: service ${mibps(best(service)).toFixed(0)} MiB/s vs raw engine-to-engine ${mibps(best(raw)).toFixed(0)} MiB/s -> ratio ${(best(raw) / best(service)).toFixed(2)} (target >= 0.8)`,
  )
  const mib = (xs: number[]) => `source/control plane ${xs[0]!.toFixed(0)} MiB, destination ${xs[1]!.toFixed(0)} MiB`
  console.log(`RSS before the copies: ${mib(idle)}`)
  console.log(`peak RSS during the copies: ${mib(peaks)} (target < 120 MiB)`)
  await reset()
} finally {
  for (const s of services) await s.stop()
  for (const e of engines) e.stop()
}
