// The stats arithmetic against payloads recorded from the two engine flavours here (Debian 12's
// dockerd 20.10 at API 1.41, Debian 13's 26.1 at 1.45; both on this machine's cgroup v1): a container
// running `while true; do :; done`, read twice with stream=false&one-shot=true, and a container
// limited to --memory 256m --cpus 0.5.
import { expect, test } from "bun:test"
import { cpuLimitCores, memoryUsed, parseStats, toSample } from "#lib/stats/reading.ts"

const fixture = (name: string) => Bun.file(`${import.meta.dir}/fixtures/${name}.json`).json()

for (const flavour of ["debian12", "current"]) {
  test(`CPU % from two successive one-shot readings (${flavour})`, async () => {
    const [a, b] = [await fixture(`${flavour}-burn-1`), await fixture(`${flavour}-burn-2`)]
    // One-shot answers carry no previous sample: the delta must come from our own two readings.
    expect(b.precpu_stats.cpu_usage.total_usage).toBe(0)
    const first = parseStats(a)!
    const second = parseStats(b)!
    // The docker CLI's formula, by hand from the payloads' own numbers.
    const expected =
      ((b.cpu_stats.cpu_usage.total_usage - a.cpu_stats.cpu_usage.total_usage) /
        (b.cpu_stats.system_cpu_usage - a.cpu_stats.system_cpu_usage)) *
      b.cpu_stats.online_cpus *
      100
    const s = toSample(first, second, null)
    expect(s.cpu).toBeCloseTo(expected, 6)
    // (30581121938 - 28508101493) / (8456580000000 - 8442190000000) × 2 × 100 for debian12: a busy
    // loop on a loaded 2-core machine, as `docker stats` showed it then.
    expect(s.cpu!).toBeCloseTo(flavour === "debian12" ? 28.812 : 26.1, 2)
    expect(s.cpuHost).toBeCloseTo(expected / 2, 6)
    expect(s.cpuLimit).toBeNull()
    // Network: bytes per second between the two readings' own times.
    const seconds = (Date.parse(b.read) - Date.parse(a.read)) / 1000
    expect(s.rx).toBeCloseTo((b.networks.eth0.rx_bytes - a.networks.eth0.rx_bytes) / seconds, 6)
    expect(s.pids).toBe(b.pids_stats.current)
    // The first reading alone has no rates.
    expect(toSample(undefined, first, null)).toMatchObject({ cpu: null, rx: null, blkRead: null, mem: first.memUsed })
  })

  test(`memory without page cache, and the limit (${flavour})`, async () => {
    const raw = await fixture(`${flavour}-limited`)
    const r = parseStats(raw)!
    expect(r.memUsed).toBe(raw.memory_stats.usage - raw.memory_stats.stats.total_inactive_file)
    expect(r.memLimit).toBe(256 * 1024 * 1024)
  })
}

test("cgroup v2 memory: usage minus inactive_file; v1 prefers total_inactive_file", () => {
  expect(memoryUsed({ usage: 100_000, stats: { inactive_file: 30_000, anon: 60_000 } })).toBe(70_000)
  expect(memoryUsed({ usage: 100_000, stats: { total_inactive_file: 20_000, inactive_file: 30_000 } })).toBe(80_000)
  expect(memoryUsed({ usage: 10, stats: { inactive_file: 30 } })).toBe(10)
  expect(memoryUsed(undefined)).toBe(0)
})

test("block I/O per second from io_service_bytes_recursive, v1 (Read/Write) and v2 (read/write) ops", async () => {
  // The engines here report no block I/O (their data root is on an overlay): the entries are added
  // in the documented format to a recorded payload.
  const a = await fixture("debian12-burn-1")
  const b = await fixture("debian12-burn-2")
  a.blkio_stats.io_service_bytes_recursive = [
    { major: 8, minor: 0, op: "Read", value: 1000 },
    { major: 8, minor: 0, op: "Write", value: 5000 },
    { major: 8, minor: 0, op: "Total", value: 6000 },
  ]
  b.blkio_stats.io_service_bytes_recursive = [
    { major: 8, minor: 0, op: "read", value: 1000 + 7.2e6 },
    { major: 8, minor: 0, op: "write", value: 5000 + 14.4e6 },
  ]
  const seconds = (Date.parse(b.read) - Date.parse(a.read)) / 1000
  const s = toSample(parseStats(a)!, parseStats(b)!, null)
  expect(s.blkRead).toBeCloseTo(7.2e6 / seconds, 3)
  expect(s.blkWrite).toBeCloseTo(14.4e6 / seconds, 3)
})

test("CPU % of the container's limit: NanoCpus, CpuQuota/CpuPeriod, cpuset", async () => {
  expect(cpuLimitCores({ NanoCpus: 500_000_000 })).toBe(0.5)
  expect(cpuLimitCores({ CpuQuota: 150_000, CpuPeriod: 100_000 })).toBe(1.5)
  expect(cpuLimitCores({ CpuQuota: 50_000, CpuPeriod: 0 })).toBe(0.5)
  expect(cpuLimitCores({ CpusetCpus: "0-2,5" })).toBe(4)
  expect(cpuLimitCores({ NanoCpus: 2e9, CpusetCpus: "1" })).toBe(1)
  expect(cpuLimitCores({ NanoCpus: 0, CpuQuota: 0, CpusetCpus: "" })).toBeNull()
  const s = toSample(parseStats(await fixture("debian12-burn-1"))!, parseStats(await fixture("debian12-burn-2"))!, 0.5)
  expect(s.cpuLimit).toBeCloseTo(s.cpu! / 0.5, 6)
})

test("a stopped container's payload (zero read time) is no reading; a restart's counters going back give no rates", async () => {
  expect(parseStats({ read: "0001-01-01T00:00:00Z", cpu_stats: {}, memory_stats: {} })).toBeNull()
  const a = parseStats(await fixture("current-burn-2"))!
  const b = { ...parseStats(await fixture("current-burn-1"))!, read: a.read + 5000, rx: 0 }
  const s = toSample(a, b, null)
  expect(s.cpu).toBeNull()
  expect(s.rx).toBeNull()
})
