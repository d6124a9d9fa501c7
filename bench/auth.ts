// bench/auth: what the front door costs. An authenticated GET /api/containers (session cookie, and
// an API token) against the same call to a service with SVC_AUTH off, in the same run (target: at
// most 1.1x); /api/health's latency while a burst of 200 wrong passwords arrives at once, against
// its idle latency (the service stays responsive); the admin's own sign-in while a flood of 500 wrong
// passwords comes from 10 addresses (through the trusted proxy's X-Forwarded-For), against the same
// sign-in idle (target: at most 2x); /api/health's 99th percentile while one user makes 1,000 API
// tokens (revoking the oldest near the bound of 100), against idle (target: at most 3x), and while four
// audit queries read 50 MB of audit log at once; and the event loop's delay while eight argon2id
// checks run through Bun.password.verify against the same checks made on the loop (verifySync): the
// first work on another thread. Run as root: bun bench/auth.ts
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { dockerEngine } from "#lib/engine/client.ts"
import { startService, type Service } from "../tests/support/service.ts"
import { median, percentile, ratio, root, startEngine } from "./support.ts"

const CONTAINERS = 30
const ROUNDS = 400
const BURST = 200
const FLOOD = 500
const FLOOD_ADDRESSES = 10
const TOKENS = 1000
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

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  })

/** `n` sequential timings of `fn`, as long as `more` says (at least `n`). */
async function timings(n: number, fn: () => Promise<unknown>, more = () => false): Promise<number[]> {
  const out: number[] = []
  while (out.length < n || more()) out.push(await timed(fn))
  return out
}

/**
 * The admin signs in from an address of their own while 500 wrong passwords for made-up users come
 * from 10 other addresses, each address sending five at a time, as fast as they are answered; both
 * through the trusted proxy (this process is it: SVC_AUTH_TRUSTED_PROXIES=127.0.0.1).
 */
async function signInDuringFlood(url: string) {
  const admin = () =>
    post(`${url}/api/auth/login`, { user: "admin", password: PASSWORD }, { "x-forwarded-for": "203.0.113.1" }).then(ok)
  for (let i = 0; i < 3; i++) await admin()
  const idle = await timings(20, admin)
  const answers = new Map<number, number>()
  let sent = 0
  let done = false
  const sender = async (address: string) => {
    while (sent < FLOOD) {
      const i = sent++
      const res = await post(
        `${url}/api/auth/login`,
        { user: `nobody${i}`, password: "wrong password" },
        { "x-forwarded-for": address },
      )
      answers.set(res.status, (answers.get(res.status) ?? 0) + 1)
    }
  }
  const flood = Promise.all(
    Array.from({ length: FLOOD_ADDRESSES * 5 }, (_, i) => sender(`192.0.2.${(i % FLOOD_ADDRESSES) + 1}`)),
  ).finally(() => (done = true))
  await Bun.sleep(20)
  const busy = await timings(5, admin, () => !done)
  await flood
  console.log(
    `\nthe admin's sign-in during ${FLOOD} wrong passwords from ${FLOOD_ADDRESSES} addresses (${[...answers]
      .map(([status, n]) => `${n} x ${status}`)
      .join(", ")}; ${busy.length} sign-ins meanwhile, ${idle.length} idle)`,
  )
  ratio("median", median(busy), median(idle), " ms")
  ratio("slowest", Math.max(...busy), Math.max(...idle), " ms")
}

/** /api/health while one user makes 1,000 API tokens, four at a time, revoking the oldest near the bound. */
async function healthDuringTokens(url: string, cookie: string) {
  const headers = { cookie, origin: url }
  const health = () => fetch(`${url}/api/health`).then(ok)
  const idle = await timings(400, health)
  const made: string[] = []
  let created = 0
  let done = false
  const maker = async () => {
    while (created < TOKENS) {
      created++
      if (made.length >= 90) await fetch(`${url}/api/tokens/${made.shift()}`, { method: "DELETE", headers }).then(ok)
      const res = await post(`${url}/api/tokens`, { name: `t${created}` }, headers)
      if (res.status !== 201) throw new Error(`token ${created}: ${res.status} ${await res.text()}`)
      made.push(((await res.json()) as { id: string }).id)
    }
  }
  const t0 = performance.now()
  const making = Promise.all(Array.from({ length: 4 }, maker)).finally(() => (done = true))
  const busy = await timings(50, health, () => !done)
  await making
  const seconds = (performance.now() - t0) / 1000
  console.log(
    `\n/api/health during ${TOKENS} token creations by one user (${(TOKENS / seconds).toFixed(0)} a second; ${busy.length} health calls meanwhile)`,
  )
  ratio("99th percentile", percentile(busy, 0.99), percentile(idle, 0.99), " ms")
  ratio("median", median(busy), median(idle), " ms")
  for (const id of made) await fetch(`${url}/api/tokens/${id}`, { method: "DELETE", headers })
}

/** /api/health while four queries read an audit log of five full files (written here beforehand). */
async function healthDuringAuditQueries(url: string, dataDir: string) {
  const login = await post(
    `${url}/api/auth/login`,
    { user: "admin", password: PASSWORD },
    { "x-forwarded-for": "203.0.113.1" },
  )
  const cookie = login.headers.get("set-cookie")!.split(";")[0]!
  const health = () => fetch(`${url}/api/health`).then(ok)
  const idle = await timings(400, health)
  let done = false
  const queries = Promise.all(
    Array.from({ length: 4 }, () => fetch(`${url}/api/audit?user=nobody&limit=100`, { headers: { cookie } }).then(ok)),
  ).finally(() => (done = true))
  const busy = await timings(20, health, () => !done)
  await queries
  const bytes = readdirSync(join(dataDir, "audit")).reduce((n, f) => n + statSync(join(dataDir, "audit", f)).size, 0)
  console.log(
    `\n/api/health during 4 audit queries over ${(bytes / 1e6).toFixed(0)} MB (${busy.length} health calls meanwhile)`,
  )
  ratio("99th percentile", percentile(busy, 0.99), percentile(idle, 0.99), " ms")
}

/** Five full audit files of ordinary entries, as months of use would leave them. */
function fillAudit(dataDir: string) {
  mkdirSync(join(dataDir, "audit"), { recursive: true, mode: 0o700 })
  const line = (i: number) =>
    `${JSON.stringify({
      id: `${String(1_700_000_000_000 + i).padStart(13, "0")}-${String(i % 1e6).padStart(6, "0")}`,
      time: new Date(1_700_000_000_000 + i).toISOString(),
      user: `u${i % 7}`,
      source: "local",
      role: "operator",
      method: "POST",
      route: "/api/stacks/:name/restart",
      target: { name: `s${i % 13}` },
      status: 200,
      result: "ok",
      peer: "10.0.0.7",
      token: null,
    })}\n`
  for (const [n, name] of ["audit.log.4", "audit.log.3", "audit.log.2", "audit.log.1", "audit.log"].entries()) {
    const lines: string[] = []
    let size = 0
    for (let i = n * 1e6; size < 10 * 1024 * 1024 - 400; i++) {
      const l = line(i)
      lines.push(l)
      size += l.length
    }
    writeFileSync(join(dataDir, "audit", name), lines.join(""), { mode: 0o600 })
  }
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
  for (const [user, role] of [
    ["bench", "viewer"],
    ["admin", "admin"],
  ]) {
    const add = Bun.spawnSync(["bun", join(root, "server.ts"), "user", "add", user!, "--role", role!], {
      env: { ...process.env, SVC_DATA: dataDir },
      stdin: new TextEncoder().encode(PASSWORD),
    })
    if (add.exitCode !== 0) throw new Error(`user add: ${add.stdout}`)
  }
  fillAudit(dataDir)
  const off = await startService({ DOCKER_HOST: engine.host })
  services.push(off)
  const on = await startService(
    { DOCKER_HOST: engine.host, SVC_AUTH: "local", SVC_AUTH_TRUSTED_PROXIES: "127.0.0.1" },
    { dataDir },
  )
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

  await signInDuringFlood(on.url)
  await healthDuringTokens(on.url, cookie)
  await healthDuringAuditQueries(on.url, dataDir)

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
