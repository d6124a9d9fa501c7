// bench/tts-isolation: the container API stays responsive while the service speaks. On a private
// engine with 20 containers, `GET /api/containers?all=true` and `/api/health` are timed with the
// service idle and while the heaviest allowed input (SVC_TTS_MAX_CHARS of prose) is synthesised
// beside a burst of shorter texts, in the same run: p99 and slowest while speaking as ratios to the
// idle p99 (target: no container-API request waits 100 ms more than the idle p99); and the
// service's RSS when idle, right after the burst and 5 s later (the audio lives in worker processes;
// the service only passes base64 bytes on).
// Run as root: bun bench/tts-isolation.ts
import { dockerEngine } from "#lib/engine/client.ts"
import { median, percentile, ratio, rssMiB, startEngine, startService } from "./support.ts"

const engine = startEngine("tts")
const docker = dockerEngine(engine.host)
for (let i = 0; i < 20; i++)
  await docker.createContainer({ Image: "svc-test/busybox:latest", Cmd: ["true"] }, `tts-bench-${i}`)
const service = await startService({ SVC_TTS_ENGINE: "offline", DOCKER_HOST: engine.host })
const timed = (path: string) => async () => {
  const t = performance.now()
  const res = await fetch(`${service.url}${path}`)
  await res.arrayBuffer()
  if (!res.ok) throw new Error(`${path} answered ${res.status}`)
  return performance.now() - t
}
const probes = { containers: timed("/api/containers?all=true"), health: timed("/api/health") }
const speak = (text: string) =>
  fetch(`${service.url}/api/synthesize`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ text }),
  }).then(async (r) => ({ status: r.status, size: (await r.arrayBuffer()).byteLength }))
const line = (label: string, xs: number[]) =>
  `${label}: ${xs.length} requests, median ${median(xs).toFixed(1)} ms, p99 ${percentile(xs, 0.99).toFixed(1)} ms, max ${Math.max(...xs).toFixed(1)} ms`
try {
  const idle = { containers: [] as number[], health: [] as number[] }
  for (let i = 0; i < 100; i++)
    for (const [k, probe] of Object.entries(probes)) idle[k as keyof typeof idle].push(await probe())
  const rssIdle = rssMiB(service.proc.pid)
  const sentence = "The harbour master walked along the quay before sunrise, while the ships waited outside. "
  const heavy = sentence.repeat(Math.floor(50_000 / sentence.length))
  const busy = { containers: [] as number[], health: [] as number[] }
  let done = false
  const jobs = Promise.all([
    speak(heavy),
    ...Array.from({ length: 6 }, (_, i) => speak(sentence.repeat(10 + i))),
  ]).finally(() => (done = true))
  while (!done) {
    for (const [k, probe] of Object.entries(probes)) busy[k as keyof typeof busy].push(await probe())
    await Bun.sleep(10)
  }
  const results = await jobs
  console.log(
    `heaviest input (${heavy.length} characters) and 6 shorter ones: ${results.map((r) => r.status).join(" ")}, ${(results[0]!.size / 1e6).toFixed(1)} MB answer`,
  )
  for (const k of ["containers", "health"] as const) {
    console.log(line(`${k} idle`, idle[k]))
    console.log(line(`${k} while speaking`, busy[k]))
    console.log(
      `${k}: p99 while speaking minus p99 idle ${(percentile(busy[k], 0.99) - percentile(idle[k], 0.99)).toFixed(1)} ms (target < 100)`,
    )
    ratio(`${k}: p99 while speaking vs p99 idle`, percentile(busy[k], 0.99), percentile(idle[k], 0.99), " ms")
    ratio(`${k}: slowest while speaking vs p99 idle`, Math.max(...busy[k]), percentile(idle[k], 0.99), " ms")
  }
  const burst = await Promise.all(Array.from({ length: 12 }, (_, i) => speak(sentence.repeat(40 + i))))
  const rssAfter = rssMiB(service.proc.pid)
  await Bun.sleep(5000)
  console.log(`burst of 12: ${burst.map((b) => b.status).join(" ")}`)
  console.log(
    `service RSS: idle ${rssIdle.toFixed(0)} MiB, right after the burst ${rssAfter.toFixed(0)} MiB (ratio ${(rssAfter / rssIdle).toFixed(2)}), 5 s later ${rssMiB(service.proc.pid).toFixed(0)} MiB`,
  )
  console.log(
    `load average while measured: ${(await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 3).join(" ")}`,
  )
} finally {
  await service.stop()
  engine.stop()
}
