// Faults against real processes and real engines: the engine hangs, goes away and comes back, the service is
// killed with SIGKILL in the middle of stack writes, the data directory's disk fills up, and a node
// dies in the middle of a proxied upload and of a copy.
import { afterAll, expect, test } from "bun:test"
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { dockerEngine } from "#lib/engine/client.ts"
import { TRANSFER_LABEL } from "#lib/volumes/transfer.ts"
import { cleanup, engineHost, realEngine, TEST_LABEL, testImage } from "../support/engine.ts"
import { startService, type Service } from "../support/service.ts"
import { sseMessages } from "../support/sse.ts"

const root = join(import.meta.dir, "../..")
const engineSh = (...args: string[]) =>
  Bun.spawnSync(["bash", join(root, "scripts/engine.sh"), ...args], { stderr: "pipe" })

async function call(svc: Service, method: string, path: string, body?: unknown) {
  const res = await fetch(`${svc.url}${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  })
  const text = await res.text()
  return { status: res.status, body: text ? JSON.parse(text) : undefined }
}

/** Polls `probe` until it holds; gives up after `limit` tries (a hang is a failure, not a pass). */
async function until(probe: () => Promise<boolean>, limit = 300, every = 100): Promise<void> {
  for (let i = 0; i < limit; i++) {
    if (await probe().catch(() => false)) return
    await Bun.sleep(every)
  }
  throw new Error("the condition never held")
}

const idle = (n: number) => `services:
  app:
    image: ${testImage()}
    command: ["sleep", "${3600 + n}"]
    labels: { ${TEST_LABEL}: "1" }
`

/** Every file under `dir` with its content. */
const snapshotOf = (dir: string) =>
  Object.fromEntries(
    readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => [join(e.parentPath, e.name), readFileSync(join(e.parentPath, e.name), "utf8")]),
  )

const services: Service[] = []
afterAll(async () => {
  for (const s of services) await s.stop().catch(() => {})
})

test("the engine hangs, then goes away and comes back: health says so within its deadline, 503 meanwhile, then recovery and engine events on the same SSE stream, without a restart", async () => {
  const netns = `hmfault${process.pid}`
  const dir = mkdtempSync(join(tmpdir(), "hm-fault-engine-"))
  const start = () => {
    const r = engineSh("start", netns, dir)
    if (r.exitCode !== 0) throw new Error(`the private engine did not start: ${r.stderr}`)
    return r.stdout.toString().trim().split("\n").at(-1)!
  }
  const host = start()
  try {
    const svc = await startService({ DOCKER_HOST: host })
    services.push(svc)
    const engine = dockerEngine(host)
    const stream = await fetch(`${svc.url}/api/events`)
    expect(stream.status).toBe(200)
    const messages = sseMessages(stream)
    const seen = async (name: string) => {
      for (;;) {
        const { value, done } = await messages.next()
        if (done) throw new Error("the event stream ended")
        if (value.source === "engine" && value.type === "container" && value.action === "create" && value.name === name)
          return value
      }
    }
    await engine.createContainer(
      { Image: testImage(), Cmd: ["true"], Labels: { [TEST_LABEL]: "1" } },
      "hm-fault-before",
    )
    expect((await seen("hm-fault-before")).id).toBeString()

    // A hung daemon (stopped with SIGSTOP: its socket still takes connections, nothing answers).
    const daemon = Number(readFileSync(join(dir, "docker.pid"), "utf8"))
    process.kill(daemon, "SIGSTOP")
    try {
      const hung = await call(svc, "GET", "/api/health")
      expect([hung.status, hung.body.status, hung.body.engine.reachable]).toEqual([200, "degraded", false])
      expect(hung.body.engine.error).toContain("did not answer GET /version within 5 s")
    } finally {
      process.kill(daemon, "SIGCONT")
    }
    await until(async () => (await call(svc, "GET", "/api/health")).body.status === "ok")

    engineSh("stop", netns, dir)
    const down = await call(svc, "GET", "/api/containers")
    expect(down.status).toBe(503)
    expect(down.body.error.code).toBe("engine_unavailable")
    const health = await call(svc, "GET", "/api/health")
    expect([health.status, health.body.status, health.body.engine.reachable]).toEqual([200, "degraded", false])

    expect(start()).toBe(host)
    await until(async () => (await call(svc, "GET", "/api/health")).body.status === "ok")
    expect((await call(svc, "GET", "/api/containers?all=true")).status).toBe(200)
    // The same stream, opened before the engine went away, carries the new engine's events.
    await engine.createContainer({ Image: testImage(), Cmd: ["true"], Labels: { [TEST_LABEL]: "1" } }, "hm-fault-after")
    expect((await seen("hm-fault-after")).id).toBeString()
    await messages.return(undefined)
  } finally {
    engineSh("stop", netns, dir)
  }
}, 180_000)

test("SIGKILL in the middle of stack writes, 50 times: every stack file parses and is one that was written", async () => {
  const engine = realEngine()
  const dataDir = mkdtempSync(join(tmpdir(), "hm-fault-kill-"))
  const name = "hm-fault-kill"
  const composes = new Set([idle(0), idle(1)])
  const values = new Set<string>(["v-start"])
  let svc = await startService({ DOCKER_HOST: engineHost() }, { dataDir })
  expect(
    (
      await call(svc, "POST", "/api/stacks", {
        name,
        content: idle(0),
        env: [
          { key: "K", value: "v-start" },
          { key: "S", value: "s3cret", secret: true },
        ],
      })
    ).status,
  ).toBe(201)
  await svc.stop()
  const dir = join(dataDir, "records", name)
  const leftovers = new Set<string>()
  const temps = () =>
    readdirSync(dir, { recursive: true })
      .map(String)
      .filter((f) => f.includes(".tmp-"))
  try {
    for (let round = 0; round < 50; round++) {
      svc = await startService({ DOCKER_HOST: engineHost() }, { dataDir })
      // The temp files of the killed process are gone once the service is back.
      expect(temps()).toEqual([])
      // Every round begins from what the last kill left, read through the service itself.
      const read = await call(svc, "GET", `/api/stacks/${name}/compose`)
      expect(read.status).toBe(200)
      expect(composes.has(read.body.content)).toBe(true)
      let stop = false
      // Two writers replace the environment, one deploys (compose file, environment, a new version).
      const writer = async (w: number) => {
        for (let k = 0; !stop; k++) {
          const value = `v-${round}-${w}-${k}`
          values.add(value)
          const env = [
            { key: "K", value },
            { key: "S", value: null, secret: true },
          ]
          const write =
            w === 0
              ? call(svc, "POST", "/api/stacks", { name, content: idle(k % 2), env })
              : call(svc, "PUT", `/api/stacks/${name}/env`, env)
          await write.catch(() => (stop = true))
        }
      }
      const writers = [writer(0), writer(1), writer(2)]
      await Bun.sleep(20 + Math.random() * 3000)
      svc.proc.kill("SIGKILL")
      await svc.proc.exited
      stop = true
      await Promise.all(writers)

      expect(composes.has(readFileSync(join(dir, "compose.yaml"), "utf8"))).toBe(true)
      const env = JSON.parse(svc.opened(join(dir, "env.json")))
      expect(env.map((e: any) => e.key)).toEqual(["K", "S"])
      expect(values.has(env[0].value)).toBe(true)
      expect(env[1]).toMatchObject({ value: "s3cret", secret: true })
      expect(readFileSync(join(dir, "env.json"), "utf8")).not.toContain("s3cret")
      expect(JSON.parse(readFileSync(join(dir, "state.json"), "utf8")).current_version).toBeNumber()
      for (const f of readdirSync(join(dir, "versions")).filter((f) => /^\d+\.json$/.test(f))) {
        const v = JSON.parse(svc.opened(join(dir, "versions", f)))
        expect(composes.has(v.compose) && values.has(v.env[0].value)).toBe(true)
      }
      for (const f of temps()) leftovers.add(f)
    }
    svc = await startService({ DOCKER_HOST: engineHost() }, { dataDir })
    services.push(svc)
    const last = await call(svc, "GET", `/api/stacks/${name}/versions`)
    expect(last.status).toBe(200)
    // A kill between a temp file's write and its rename leaves only the temp file, never a torn stack file.
    console.log(
      `50 kills: ${values.size} values written, ${last.body.length} versions, ${leftovers.size} temp files left by kills (removed at the next start)`,
    )
    await call(svc, "DELETE", `/api/stacks/${name}?volumes=true`)
  } finally {
    await cleanup(engine)
    rmSync(dataDir, { recursive: true, force: true })
  }
}, 600_000)

test("a full disk under the data directory: writes answer 507 insufficient_storage, nothing half-written, reads go on", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "hm-fault-full-"))
  expect(Bun.spawnSync(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", dataDir]).exitCode).toBe(0)
  const name = "hm-fault-full"
  const svc = await startService({ DOCKER_HOST: engineHost() }, { dataDir })
  try {
    expect(
      (await call(svc, "POST", "/api/stacks", { name, content: idle(0), env: [{ key: "K", value: "before" }] })).status,
    ).toBe(201)
    const dir = join(dataDir, "records", name)
    const snapshot = () => snapshotOf(dir)
    const before = snapshot()
    // Fill the disk to the last byte.
    const filler = join(dataDir, "filler")
    const block = new Uint8Array(4096)
    let size = 0
    try {
      for (;;) {
        writeFileSync(filler, block, { flag: "a" })
        size += block.length
      }
    } catch (err) {
      expect((err as NodeJS.ErrnoException).code).toBe("ENOSPC")
    }
    for (const [method, path, body] of [
      ["PUT", `/api/stacks/${name}/env`, [{ key: "K", value: "x".repeat(8192) }]],
      ["POST", "/api/stacks", { name, content: idle(1) + "#".repeat(8192), env: [{ key: "K", value: "after" }] }],
      ["POST", "/api/stacks", { name: "hm-fault-full-new", content: idle(1) }],
    ] as const) {
      const res = await call(svc, method, path, body)
      expect([res.status, res.body.error.code]).toEqual([507, "insufficient_storage"])
    }
    expect(snapshot()).toEqual(before)
    expect(readdirSync(join(dataDir, "records"))).toEqual([name])
    expect(readdirSync(join(dataDir, "stacks"))).toEqual([name])
    const read = await call(svc, "GET", `/api/stacks/${name}/compose`)
    expect([read.status, read.body.content]).toEqual([200, idle(0)])
    expect((await call(svc, "GET", "/api/health")).body.status).toBe("ok")
    // Space back: the same write goes through.
    rmSync(filler)
    expect((await call(svc, "PUT", `/api/stacks/${name}/env`, [{ key: "K", value: "after" }])).status).toBe(200)
    console.log(`disk full after ${size} filler bytes`)
    await call(svc, "DELETE", `/api/stacks/${name}`)
  } finally {
    await svc.stop()
    await cleanup(realEngine())
    Bun.spawnSync(["umount", dataDir])
    rmSync(dataDir, { recursive: true, force: true })
  }
}, 120_000)

/** A stand-in node in a process of its own, so that it can die the way a machine does (SIGKILL). */
async function nodeProcess(token: string) {
  const script = `import { fakeNode } from ${JSON.stringify(join(root, "tests/support/node.ts"))}
const n = fakeNode({ token: process.env.NODE_TOKEN })
console.log(JSON.stringify({ url: n.url, serverId: n.serverId }))`
  const proc = Bun.spawn(["bun", "-e", script], {
    env: { ...process.env, NODE_TOKEN: token },
    stdout: "pipe",
    stderr: "inherit",
  })
  const reader = proc.stdout.getReader()
  const { value } = await reader.read()
  return { proc, ...(JSON.parse(new TextDecoder().decode(value)) as { url: string; serverId: string }) }
}

const openFds = (pid: number) => readdirSync(`/proc/${pid}/fd`).length

test("a node dies in the middle of a proxied upload: the client gets an error, the control plane stays healthy and keeps nothing open", async () => {
  const cp = await startService({ DOCKER_HOST: engineHost() })
  services.push(cp)
  const token = (await call(cp, "POST", "/api/cluster/token")).body.token
  const node = await nodeProcess(token)
  expect(
    (
      await call(cp, "POST", "/api/cluster/register", {
        token,
        server_id: node.serverId,
        name: "dying",
        advertise: node.url,
      })
    ).status,
  ).toBe(201)
  const baseline = openFds(cp.proc.pid)

  let sent = 0
  let cancelled = false
  const chunk = new Uint8Array(64 * 1024)
  const body = new ReadableStream<Uint8Array>({
    async pull(c) {
      sent += chunk.length
      if (sent === 64 * chunk.length) node.proc.kill("SIGKILL") // 4 MiB in
      if (sent > 1 << 30) return c.close() // a bound, never reached when the failure is seen
      c.enqueue(chunk)
    },
    cancel: () => void (cancelled = true),
  })
  const outcome = await fetch(`${cp.url}/api/nodes/dying/proxy/upload`, {
    method: "PUT",
    body,
    headers: { "content-type": "application/octet-stream" },
    duplex: "half",
  } as RequestInit).then(
    async (res) => ({ status: res.status, body: await res.text() }),
    (err: Error) => ({ status: 0, body: err.message }),
  )
  await node.proc.exited
  expect(sent).toBeLessThan(1 << 30)
  if (outcome.status !== 0) {
    expect(outcome.status).toBe(502)
    expect(JSON.parse(outcome.body).error.code).toBe("node_unreachable")
  }
  console.log(
    `upload: ${sent >> 20} MiB sent before the failure reached the client (${outcome.status || outcome.body}); body cancelled: ${cancelled}`,
  )
  expect((await call(cp, "GET", "/api/health")).body.status).toBe("ok")
  expect((await call(cp, "GET", "/api/stacks")).status).toBe(200)
  // The sockets to the client and to the dead node are closed again.
  await until(async () => openFds(cp.proc.pid) <= baseline)
}, 120_000)

test("a node dies in the middle of a copy: a JSON error, the source untouched, and what is left on the node named in an error event", async () => {
  const [engA, engB] = [realEngine("a"), realEngine("b")]
  const stack = "hm-fault-copy"
  const volume = `${stack}_data`
  const compose = `services:
  app:
    image: ${testImage()}
    command: ["sleep", "3600"]
    volumes: [data:/data]
    labels: { ${TEST_LABEL}: "1" }
volumes:
  data:
    labels: { ${TEST_LABEL}: "1" }
`
  const env = (which: "a" | "b") => ({
    DOCKER_HOST: engineHost(which),
    SVC_TRANSFER_IMAGE: testImage(),
    SVC_PROBE_TIMEOUT_MS: "3000",
  })
  const a = await startService(env("a"))
  services.push(a)
  const bDir = mkdtempSync(join(tmpdir(), "hm-fault-node-"))
  let b = await startService(env("b"), { dataDir: bDir })
  try {
    const token = (await call(a, "POST", "/api/cluster/token")).body.token
    expect(
      (await call(b, "POST", "/api/cluster/join", { control_plane_url: a.url, token, name: "b", advertise: b.url }))
        .status,
    ).toBe(200)
    expect((await call(a, "POST", "/api/stacks", { name: stack, content: compose })).status).toBe(201)
    // 512 MiB in the source volume: long enough a transfer to die in.
    const filler = await engA.createContainer({
      Image: testImage(),
      Cmd: ["dd", "if=/dev/zero", "of=/data/big", "bs=1M", "count=512"],
      Labels: { [TEST_LABEL]: "1" },
      HostConfig: { Binds: [`${volume}:/data`] },
    })
    await engA.containerAction(filler.Id, "start")
    expect((await engA.waitContainer(filler.Id)).StatusCode).toBe(0)

    const copying = call(a, "POST", `/api/stacks/${stack}/copy`, { to: "b" })
    await until(async () => (await engB.listVolumes()).some((v) => v.Name === volume), 600, 20)
    b.proc.kill("SIGKILL")
    await b.proc.exited
    const res = await copying
    expect(res.status).toBeGreaterThanOrEqual(500)
    expect(res.body.error.code).toBeString()
    expect((await call(a, "GET", "/api/health")).body.status).toBe("ok")
    expect((await call(a, "GET", `/api/stacks/${stack}/compose`)).body.content).toBe(compose)

    const history = (await call(a, "GET", "/api/events/history")).body as { action: string; message?: string }[]
    const undo = history.find((e) => e.action === "copy_undo_failed")
    expect(undo?.message).toContain(`volume ${volume}`)
    // The node back at the same address: what the event named is there, no stack was imported, and it can be removed.
    b = await startService(env("b"), { dataDir: bDir, port: b.port })
    expect((await call(b, "GET", `/api/stacks/${stack}`)).status).toBe(404)
    expect((await engB.listVolumes()).map((v) => v.Name)).toContain(volume)
    // The import's throwaway container, which held the volume, went when the node started again.
    await until(async () => (await call(b, "DELETE", `/api/volumes/${volume}`)).status < 300)
    expect((await engB.listContainers({ all: true, filters: { label: [TRANSFER_LABEL] } })).length).toBe(0)
  } finally {
    await call(a, "DELETE", `/api/stacks/${stack}?volumes=true`).catch(() => {})
    await b.stop()
    rmSync(bDir, { recursive: true, force: true })
    await Promise.all([cleanup(engA), cleanup(engB)])
    for (const e of [engA, engB]) await e.removeVolume(volume, { force: true }).catch(() => {})
  }
}, 300_000)
