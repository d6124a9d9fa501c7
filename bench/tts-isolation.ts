// bench/tts-isolation: the service stays responsive while it speaks. /api/health latency while the
// heaviest allowed input (SVC_TTS_MAX_CHARS of prose) is synthesised, against health latency of the
// idle service in the same run; and the service's RSS when idle, after a burst of syntheses, and a
// few seconds later (the audio lives in worker processes; the service only passes base64 bytes on).
// Run: bun bench/tts-isolation.ts
import { join } from "node:path"
import { median, percentile, rssMiB, startService } from "./support.ts"

const service = await startService({ SVC_TTS_ENGINE: "espeak", DOCKER_HOST: `unix://${join("/tmp", "hm-no-engine.sock")}` })
const probe = async () => {
  const t = performance.now()
  await (await fetch(`${service.url}/api/health`)).text()
  return performance.now() - t
}
const speak = (text: string) => fetch(`${service.url}/api/synthesize`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ text }) }).then(async (r) => ({ status: r.status, size: (await r.arrayBuffer()).byteLength }))
try {
  const idle: number[] = []
  for (let i = 0; i < 100; i++) idle.push(await probe())
  const rssIdle = rssMiB(service.proc.pid)
  const sentence = "The harbour master walked along the quay before sunrise, while the ships waited outside. "
  const heavy = sentence.repeat(Math.floor(50_000 / sentence.length))
  const busy: number[] = []
  let done = false
  const job = speak(heavy).finally(() => (done = true))
  while (!done) {
    busy.push(await probe())
    await Bun.sleep(10)
  }
  const result = await job
  console.log(`heaviest input (${heavy.length} characters): ${result.status}, ${(result.size / 1e6).toFixed(1)} MB answer`)
  console.log(`health idle: median ${median(idle).toFixed(1)} ms, p99 ${percentile(idle, 0.99).toFixed(1)} ms`)
  console.log(`health during synthesis: ${busy.length} probes, median ${median(busy).toFixed(1)} ms, p99 ${percentile(busy, 0.99).toFixed(1)} ms, max ${Math.max(...busy).toFixed(1)} ms`)
  const burst = await Promise.all(Array.from({ length: 12 }, (_, i) => speak(sentence.repeat(40 + i))))
  const rssAfter = rssMiB(service.proc.pid)
  await Bun.sleep(5000)
  console.log(`burst of 12: ${burst.map((b) => b.status).join(" ")}`)
  console.log(`service RSS: idle ${rssIdle.toFixed(0)} MiB, right after the burst ${rssAfter.toFixed(0)} MiB, 5 s later ${rssMiB(service.proc.pid).toFixed(0)} MiB`)
  console.log(`load average while measured: ${(await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 3).join(" ")}`)
} finally {
  await service.stop()
}
