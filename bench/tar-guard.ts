// bench/tar-guard: the volume import's tar guard against the same stream passed through unchecked,
// on one synthetic 512 MiB archive per file size (64 MiB, 64 KiB and 4 KiB files), fed in 64 KiB
// chunks as a network body arrives. Each measurement runs in a process of its own, guard and plain
// in turn, so that its peak RSS is its own; printed: MiB per CPU-second and peak RSS, and the
// guard's ratio to the plain pass-through (medians). No engine needed.
// Run: bun bench/tar-guard.ts [rounds=3]
import { readFileSync } from "node:fs"
import { tarGuard } from "#lib/volumes/tar-scan.ts"
import { median } from "./support.ts"

const TOTAL = 512 * 1024 * 1024
const CHUNK = 64 * 1024
const SIZES: Record<string, number> = { "64 MiB files": 64 << 20, "64 KiB files": 64 << 10, "4 KiB files": 4 << 10 }

function header(name: string, size: number): Uint8Array {
  const b = new Uint8Array(512)
  const put = (s: string, at: number) => b.set(new TextEncoder().encode(s), at)
  put(name, 0)
  put("0000644\0", 100)
  put("0000000\0", 108)
  put("0000000\0", 116)
  put(`${size.toString(8).padStart(11, "0")}\0`, 124)
  put("00000000000\0", 136)
  put("0", 156)
  put("ustar\u000000", 257)
  put("        ", 148)
  put(
    `${b
      .reduce((n, x) => n + x, 0)
      .toString(8)
      .padStart(6, "0")}\0 `,
    148,
  )
  return b
}

/** The archive as views of a few prebuilt buffers, so that making it costs little next to reading it. */
function* segments(fileSize: number): Generator<Uint8Array> {
  const data = new Uint8Array(1 << 20).map((_, i) => (i * 2654435761) >>> 24)
  const per = 512 + Math.ceil(fileSize / 512) * 512
  if (fileSize >= data.length) {
    const h = header("dir/big-file", fileSize)
    for (let i = 0; i < Math.floor(TOTAL / per); i++) {
      yield h
      for (let left = fileSize; left > 0; left -= data.length) yield data.subarray(0, Math.min(left, data.length))
    }
  } else {
    const count = Math.floor((8 << 20) / per)
    const window = new Uint8Array(count * per)
    for (let i = 0; i < count; i++) {
      window.set(header(`dir${i % 100}/file${i}`, fileSize), i * per)
      window.set(data.subarray(0, fileSize), i * per + 512)
    }
    for (let i = 0; i < Math.floor(TOTAL / window.length); i++) yield window
  }
  yield new Uint8Array(1024)
}

/** The archive re-cut into fresh 64 KiB buffers, pulled like a request body. */
function body(fileSize: number): ReadableStream<Uint8Array> {
  const it = segments(fileSize)
  let pending: Uint8Array | undefined
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        const out = new Uint8Array(CHUNK)
        let filled = 0
        while (filled < CHUNK) {
          if (!pending?.length) {
            const next = it.next()
            if (next.done) break
            pending = next.value
          }
          const n = Math.min(CHUNK - filled, pending!.length)
          out.set(pending!.subarray(0, n), filled)
          pending = pending!.subarray(n)
          filled += n
        }
        if (filled === 0) controller.close()
        else controller.enqueue(out.subarray(0, filled))
      },
    },
    { highWaterMark: 0 },
  )
}

const peakMiB = () => Number(/VmHWM:\s+(\d+)/.exec(readFileSync("/proc/self/status", "utf8"))![1]) / 1024

async function measure(kind: "guard" | "plain", size: string): Promise<void> {
  const source = body(SIZES[size]!)
  const stream = kind === "guard" ? tarGuard(source).stream : source
  const cpu0 = process.cpuUsage()
  let bytes = 0
  for await (const chunk of stream) bytes += chunk.length
  const cpu = process.cpuUsage(cpu0)
  console.log(JSON.stringify({ perCpuSecond: bytes / 2 ** 20 / ((cpu.user + cpu.system) / 1e6), peak: peakMiB() }))
}

async function main(rounds: number) {
  for (const size of Object.keys(SIZES)) {
    const runs: Record<string, { perCpuSecond: number; peak: number }[]> = { guard: [], plain: [] }
    for (let r = 0; r < rounds; r++)
      for (const kind of ["plain", "guard"] as const) {
        const child = Bun.spawnSync(["bun", import.meta.path, "child", kind, size], { stderr: "inherit" })
        runs[kind]!.push(JSON.parse(child.stdout.toString()))
      }
    const speed = (k: string) => median(runs[k]!.map((x) => x.perCpuSecond))
    const peak = (k: string) => median(runs[k]!.map((x) => x.peak))
    console.log(
      `${size}: guard ${speed("guard").toFixed(0)} vs plain ${speed("plain").toFixed(0)} MiB per CPU-second -> ratio ${(speed("guard") / speed("plain")).toFixed(2)}; ` +
        `peak RSS ${peak("guard").toFixed(1)} vs ${peak("plain").toFixed(1)} MiB -> ratio ${(peak("guard") / peak("plain")).toFixed(2)}`,
    )
  }
}

if (process.argv[2] === "child") await measure(process.argv[3] as "guard" | "plain", process.argv[4]!)
else await main(Number(process.argv[2] ?? 3))
