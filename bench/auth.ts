// bench/auth: what the front door costs. An authenticated GET /api/containers (session cookie, and
// an API token) against the same call to a service with SVC_AUTH off, in the same run (target: at
// most 1.1x); /api/health's latency while a burst of 200 wrong passwords arrives at once, against
// its idle latency (the service stays responsive); and the event loop's delay while eight argon2id
// checks run through Bun.password.verify against the same checks made on the loop (verifySync): the
// first work on another thread. Run as root: bun bench/auth.ts
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { dockerEngine } from "#lib/engine/client.ts"
import { startService, type Service } from "../tests/support/service.ts"
import { median, percentile, ratio, root, startEngine } from "./support.ts"

const CONTAINERS = 30
const ROUNDS = 400
const BURST = 200
const PASSWORD = "bench password 1"

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now()
  await fn()
  return performance.now() - t0
}

const ok = (res: Response) =>
  res.ok ? res.arrayBuffer() : Promise.reject(new Error(`${res.url} answered ${res.status}`))

/** The event loop's delay (ms) meanwhile: how late 1 ms timers fire, their 95th percentile. */
async function loopDelay(work: () => Promise<unknown>): Promise<number> {
  const lates: number[] = []
  let running = true
  const tick = async () => {
    while (running) {
      const t0 = performance.now()
      await Bun.sleep(1)
      lates.push(performance.now() - t0 - 1)
    }
  }
  const ticking = tick()
  await work()
  running = false
  await ticking
  return percentile(lates, 0.95)
}

const engine = startEngine("auth")
const services: Service[] = []
const dataDir = mkdtempSync(join(tmpdir(), "hm-bench-auth-"))
try {
  const docker = dockerEngine(engine.host)
  for (let n = 0; n < CONTAINERS; n++)
    await docker.createContainer(
      { Image: "svc-test/busybox:latest", Cmd: ["sleep", "3600"], Labels: { "hm.bench": "1" } },
      `bench-${n}`,
    )
  const add = Bun.spawnSync(["bun", join(root, "server.ts"), "user", "add", "bench", "--role", "viewer"], {
    env: { ...process.env, SVC_DATA: dataDir },
    stdin: new TextEncoder().encode(PASSWORD),
  })
  if (add.exitCode !== 0) throw new Error(`user add: ${add.stdout}`)
  const off = await startService({ DOCKER_HOST: engine.host })
  services.push(off)
  const on = await startService({ DOCKER_HOST: engine.host, SVC_AUTH: "local" }, { dataDir })
  services.push(on)
  const login = await fetch(`${on.url}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ user: "bench", password: PASSWORD }),
  })
  const cookie = login.headers.get("set-cookie")!.split(";")[0]!
  const made = await fetch(`${on.url}/api/tokens`, {
    method: "POST",
    headers: { cookie, "content-type": "application/json", origin: on.url },
    body: JSON.stringify({ name: "bench" }),
  })
  const { token } = (await made.json()) as { token: string }

  const calls = {
    off: () => fetch(`${off.url}/api/containers`).then(ok),
    cookie: () => fetch(`${on.url}/api/containers`, { headers: { cookie } }).then(ok),
    token: () => fetch(`${on.url}/api/containers`, { headers: { authorization: `Bearer ${token}` } }).then(ok),
  }
  for (const call of Object.values(calls)) for (let i = 0; i < 20; i++) await call()
  const times: Record<keyof typeof calls, number[]> = { off: [], cookie: [], token: [] }
  // Interleaved in an order drawn each round, so that the machine's load (and whatever a call leaves
  // behind for the next) falls on each alike.
  for (let i = 0; i < ROUNDS; i++)
    for (const [name, call] of Object.entries(calls).sort(() => Math.random() - 0.5))
      times[name as keyof typeof calls].push(await timed(call))
  console.log(`GET /api/containers with ${CONTAINERS} containers, ${ROUNDS} rounds, median ms`)
  ratio("session cookie vs SVC_AUTH=off", median(times.cookie), median(times.off), " ms")
  ratio("API token vs SVC_AUTH=off", median(times.token), median(times.off), " ms")

  const health = () => fetch(`${on.url}/api/health`).then(ok)
  const idle: number[] = []
  for (let i = 0; i < 100; i++) idle.push(await timed(health))
  const wrong = () =>
    fetch(`${on.url}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ user: "bench", password: "wrong password" }),
    }).then((r) => r.status)
  const busy: number[] = []
  let done = false
  const burst = Promise.all(Array.from({ length: BURST }, wrong)).finally(() => (done = true))
  while (!done) busy.push(await timed(health))
  const statuses = await burst
  console.log(
    `\n/api/health during a burst of ${BURST} wrong passwords (answers: ${statuses.filter((s) => s === 401).length} x 401, ${statuses.filter((s) => s === 429).length} x 429; ${busy.length} health calls meanwhile)`,
  )
  ratio("median", median(busy), median(idle), " ms")
  ratio("95th percentile", percentile(busy, 0.95), percentile(idle, 0.95), " ms")

  const hash = await Bun.password.hash(PASSWORD, { algorithm: "argon2id" })
  const idleDelay = await loopDelay(() => Bun.sleep(500))
  const t0 = performance.now()
  const offLoop = await loopDelay(() =>
    Promise.all(Array.from({ length: 8 }, () => Bun.password.verify("wrong", hash))),
  )
  const elapsed = performance.now() - t0
  // The same checks made on the loop itself, one per turn: what the service would suffer if they were.
  const onLoop = await loopDelay(async () => {
    for (let i = 0; i < 8; i++) {
      Bun.password.verifySync("wrong", hash)
      await Bun.sleep(1)
    }
  })
  console.log(
    `\nevent loop delay (95th percentile) while 8 argon2id checks run (${elapsed.toFixed(0)} ms in all), idle: ${idleDelay.toFixed(2)} ms`,
  )
  ratio("Bun.password.verify vs the same checks on the loop (verifySync)", offLoop, onLoop, " ms")
} finally {
  for (const s of services) await s.stop().catch((err) => console.error(String(err)))
  await dockerEngine(engine.host)
    .listContainers({ all: true })
    .then(
      () => {},
      () => {},
    )
  engine.stop()
  rmSync(dataDir, { recursive: true, force: true })
}
