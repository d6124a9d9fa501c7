// Backups with restic on a real engine: a stack with a volume of checksummed files backed up, its
// data changed and backed up again (the second run adds about what changed), the stack and its
// volume deleted and restored under its own name and a new one with the same checksums, restic reading
// and writing the volume's folder itself on this local engine; a container racing a file against a
// symlink to a host file while restic reads never gets the host file into a backup, a restore with
// force over a volume whose container left symlinks to a host folder writes nothing there, and a
// backup of the older kind (the volume as a tar stream) still restores, and a restore whose restic is
// killed removes all it made; a dry run
// that changes nothing, a restore over a volume holding data refused with the volume untouched, a
// wrong repository password refused, a repository on a full disk and a backup killed midway leaving
// no snapshot behind; a dump hook before the snapshot and a stack stopped during it started again,
// also when the backup failed; progress over SSE, and a backup stopped when that stream's client goes
// away; a schedule with its retention and check; neither the password nor
// the stack's secret in any answer, event or log line.
import { afterAll, beforeAll, expect, test } from "bun:test"
import { spawnSync } from "node:child_process"
import {
  appendFileSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Engine } from "#lib/engine/client.ts"
import { STACK_LABEL } from "#lib/engine/containers.ts"
import { TRANSFER_LABEL } from "#lib/volumes/transfer.ts"
import {
  cleanup,
  engineHost,
  insideChroot,
  realEngine,
  runContainer,
  TEST_LABEL,
  testImage,
} from "../support/engine.ts"
import { startService, type Service } from "../support/service.ts"
import { sseMessages } from "../support/sse.ts"

let engine: Engine
let svc: Service
let dir: string
const PASSWORD = "pw-Correct-Horse-7f3a"
const SECRET = "secret-Value-91c2e"
const STACKS = ["hm-bk", "hm-bk2", "hm-bk3", "hm-bk4", "hm-bk5"]
const VOLUMES = ["hm-bk_data", "hm-bk2_data", "hm-bk3_data", "hm-bk4_data", "hm-bk5_data"]
const MiB = 1 << 20
const answers: string[] = []
/** What the service notified (SVC_NOTIFY_URLS points here). */
const notified: any[] = []
const hook = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch: async (req) => (notified.push(await req.json()), new Response("ok")),
})
const serviceEnv = () => ({
  DOCKER_HOST: engineHost("a"),
  SVC_TRANSFER_IMAGE: testImage(),
  SVC_METRICS: "on",
  SVC_NOTIFY_URLS: `http://127.0.0.1:${hook.port}/hook`,
})

const compose = `services:
  app:
    image: ${testImage()}
    command: ["sh", "-c", "trap 'exit 0' TERM; while true; do sleep 0.2; done"]
    volumes: [data:/data]
    labels: { ${TEST_LABEL}: "1" }
volumes:
  data:
    labels: { ${TEST_LABEL}: "1" }
`

async function call(method: string, path: string, body?: unknown, signal?: AbortSignal) {
  const res = await fetch(`${svc.url}${path}`, {
    method,
    signal,
    ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  })
  const text = await res.text()
  answers.push(text)
  return { status: res.status, body: JSON.parse(text) as any }
}

/** Runs `script` in a labelled throwaway container with `volume` at /v; its output once it exited 0. */
async function run(volume: string, script: string): Promise<string> {
  const { Id } = await engine.createContainer({
    Image: testImage(),
    Cmd: ["sh", "-c", script],
    Labels: { [TEST_LABEL]: "1" },
    HostConfig: { NetworkMode: "none", Mounts: [{ Type: "volume", Source: volume, Target: "/v" }] },
  })
  try {
    await engine.containerAction(Id, "start")
    const { StatusCode } = await engine.waitContainer(Id)
    const lines: string[] = []
    for await (const l of engine.logs(Id, { follow: false, tail: "all" })) lines.push(l.line)
    if (StatusCode !== 0) throw new Error(`${script} exited ${StatusCode}: ${lines.join("\n")}`)
    return lines.join("\n")
  } finally {
    await engine.removeContainer(Id, { force: true })
  }
}

const manifest = (volume: string) =>
  run(volume, `cd /v && find . -type f | sort | xargs -r sha256sum && find . | sort | xargs stat -c "%a %u %g %F %n"`)
const volumes = async () =>
  (await engine.listVolumes())
    .map((v) => v.Name)
    .filter((n) => VOLUMES.includes(n))
    .sort()
const backups = async (repo = "local") => (await call("GET", `/api/backups/${repo}/hm-bk`)).body as any[]
const mountpoint = async (volume: string) => (await engine.inspectVolume(volume)).Mountpoint

/** restic by hand on a repository of the test's folder (`input` on its standard input); its output, once it exited 0. */
function restic(repo: string, args: string[], input?: Buffer): Buffer {
  const out = spawnSync("restic", args, {
    input,
    maxBuffer: 1 << 30,
    env: { ...process.env, RESTIC_REPOSITORY: join(dir, repo), RESTIC_PASSWORD: PASSWORD },
  })
  if (out.status !== 0) throw new Error(`restic ${args.join(" ")}: ${out.stderr}`)
  return out.stdout
}
const snapshot = (id: string) =>
  (
    JSON.parse(restic("repo", ["snapshots", "--json", id]).toString()) as {
      paths: string[]
      tags: string[]
      hostname: string
    }[]
  )[0]!

async function wipe() {
  for (const name of STACKS) await call("DELETE", `/api/stacks/${name}?volumes=true`).catch(() => {})
  for (const v of VOLUMES) await engine.removeVolume(v, { force: true }).catch(() => {})
  await cleanup(engine)
}

beforeAll(async () => {
  engine = realEngine("a")
  await cleanup(engine)
  dir = mkdtempSync(join(tmpdir(), "hm-backups-"))
  svc = await startService(serviceEnv())
  await wipe()
  expect(
    (
      await call("POST", "/api/backups/repos", {
        name: "local",
        repository: join(dir, "repo"),
        password: PASSWORD,
        init: true,
      })
    ).status,
  ).toBe(201)
  const deployed = await call("POST", "/api/stacks", {
    name: "hm-bk",
    content: compose,
    env: [{ key: "TOKEN", value: SECRET, secret: true }],
  })
  expect(deployed.status).toBe(201)
  // 24 files of 1 MiB of random bytes in two folders, one of another owner with its own mode.
  await run(
    "hm-bk_data",
    `for i in $(seq 1 24); do d=/v/dir$((i % 2)); mkdir -p $d; head -c 1048576 /dev/urandom > $d/f$i; done; chown 1000:1000 /v/dir1/f1 && chmod 600 /v/dir1/f1`,
  )
}, 90_000)

afterAll(async () => {
  await wipe()
  await svc.stop()
  hook.stop(true)
  spawnSync("umount", [join(dir, "full")])
  rmSync(dir, { recursive: true, force: true })
}, 60_000)

test("a repository is added only with its password, which no answer shows", async () => {
  const wrong = await call("POST", "/api/backups/repos", {
    name: "wrong",
    repository: join(dir, "repo"),
    password: "not-the-password",
  })
  expect(wrong.status).toBe(409)
  expect(wrong.body.error.code).toBe("repository_password")
  const repos = await call("GET", "/api/backups/repos")
  expect(repos.body).toEqual([{ name: "local", repository: join(dir, "repo"), last_check: null }])
  const bad = await call("POST", "/api/backups/repos", { name: "Bad Name", repository: "x", password: "y" })
  expect(bad.status).toBe(400)
})

test("a second backup adds about what changed; the stack comes back under its name and a new one", async () => {
  const first = await call("POST", "/api/backups/local/hm-bk/run")
  expect(first.status).toBe(201)
  // The engine is local: restic read the volume's folder itself, as a snapshot of that folder.
  expect(first.body.pieces.map((p: any) => p.path)).toEqual(["stack.json", "volumes/hm-bk_data"])
  expect(snapshot(first.body.pieces[1].snapshot)).toMatchObject({
    paths: [await mountpoint("hm-bk_data")],
    tags: expect.arrayContaining(["piece:volumes/hm-bk_data"]),
  })
  expect(first.body.added).toBeGreaterThan(24 * MiB)

  await run(
    "hm-bk_data",
    "head -c 1048576 /dev/urandom > /v/dir0/f2 && head -c 1048576 /dev/urandom > /v/dir1/f3 && rm /v/dir0/f4",
  )
  const before = await manifest("hm-bk_data")
  const second = await call("POST", "/api/backups/local/hm-bk/run")
  expect(second.status).toBe(201)
  // 2 MiB of new bytes: restic stores the chunks around them again, not the other 21 files.
  expect(second.body.added).toBeGreaterThan(2 * MiB)
  expect(second.body.added).toBeLessThan(12 * MiB)
  expect(second.body.bytes).toBeGreaterThan(23 * MiB)
  const list = await backups()
  expect(list.map((b) => b.run)).toEqual([second.body.run, first.body.run])

  expect((await call("DELETE", "/api/stacks/hm-bk?volumes=true")).status).toBeLessThan(300)
  expect(await volumes()).toEqual([])

  const dry = await call("POST", "/api/backups/local/hm-bk/restore", { dry_run: true })
  expect(dry.status).toBe(200)
  expect(dry.body).toMatchObject({ restored: false, plan: { target: "hm-bk", blockers: [] } })
  expect(await volumes()).toEqual([])

  const same = await call("POST", "/api/backups/local/hm-bk/restore", {})
  expect(same.status).toBe(201)
  expect(await manifest("hm-bk_data")).toBe(before)
  // The environment comes back with its secret's value, kept where the service keeps it.
  expect(JSON.parse(svc.opened(join(svc.dataDir, "records", "hm-bk", "env.json")))).toEqual([
    { key: "TOKEN", value: SECRET, secret: true },
  ])

  const older = await call("POST", "/api/backups/local/hm-bk/restore", { run: first.body.run, as: "hm-bk2" })
  expect(older.status).toBe(201)
  expect(await manifest("hm-bk2_data")).not.toBe(before)
  const renamed = await call("POST", "/api/backups/local/hm-bk/restore", { as: "hm-bk3" })
  expect(renamed.status).toBe(201)
  expect(await manifest("hm-bk3_data")).toBe(before)
  expect((await call("GET", "/api/stacks/hm-bk3")).status).toBe(200)
}, 90_000)

test("a restore over a volume holding data is refused and leaves it as it was; a taken name too", async () => {
  await call("DELETE", "/api/stacks/hm-bk2")
  const held = await manifest("hm-bk2_data")
  const refused = await call("POST", "/api/backups/local/hm-bk/restore", { as: "hm-bk2" })
  expect(refused.status).toBe(409)
  expect(refused.body.error.code).toBe("restore_blocked")
  expect(refused.body.plan.blockers.map((b: any) => b.code)).toEqual(["volume_exists"])
  expect(await manifest("hm-bk2_data")).toBe(held)
  expect((await call("GET", "/api/stacks/hm-bk2")).status).toBe(404)
  const taken = await call("POST", "/api/backups/local/hm-bk/restore", {})
  expect(taken.status).toBe(409)
  expect(taken.body.plan.blockers.map((b: any) => b.code)).toContain("name_taken")
}, 60_000)

test("a backup of the older kind, each volume a tar stream, still restores; made outside the service, it is the newest, and a restore takes it over the one the service last knew", async () => {
  // Made as the service made it before it read volume folders: stack.json and the volume's tar, tagged alike.
  // The listing tells the service the newest backup it knows of, whose data a restore starts on ahead.
  const known = (await backups())[0]
  const stackJson = known.pieces.find((p: any) => p.path === "stack.json").snapshot
  const { tags, hostname } = snapshot(stackJson)
  const old = "20250101T000000Z-0ld0ld"
  const tagged = [
    "backup",
    "--quiet",
    "--host",
    hostname,
    ...tags
      .filter((t) => !t.startsWith("run:"))
      .concat(`run:${old}`)
      .flatMap((t) => ["--tag", t]),
    "--stdin",
    "--stdin-filename",
  ]
  restic("repo", [...tagged, "stack.json"], restic("repo", ["dump", stackJson, "/stack.json"]))
  // Data the backup the service knows does not hold.
  await run("hm-bk_data", "echo made-outside > /v/outside")
  const before = await manifest("hm-bk_data")
  const tar = spawnSync("tar", ["-C", await mountpoint("hm-bk_data"), "-cf", "-", "."], { maxBuffer: 1 << 30 }).stdout
  restic("repo", [...tagged, "volumes/hm-bk_data.tar"], tar)
  const res = await call("POST", "/api/backups/local/hm-bk/restore", { as: "hm-bk4" })
  expect(res.status).toBe(201)
  expect(await manifest("hm-bk4_data")).toBe(before)
  expect((await engine.listVolumes()).map((v) => v.Name).filter((n) => n.startsWith("harbormaster-restore-"))).toEqual(
    [],
  )
  const list = await backups()
  expect(list[0].run).toBe(old)
  expect(list.find((b) => b.run === old)?.pieces.map((p: any) => p.path)).toEqual([
    "stack.json",
    "volumes/hm-bk_data.tar",
  ])
  expect(list.some((b) => b.run === known.run)).toBe(true)
}, 60_000)

test("a container racing files against symlinks to a host file while restic reads: each backup fails or holds the container's bytes, never the host file's", async () => {
  const HOST = "host-only-bytes-5e11c0de "
  const secret = join(dir, "host-secret")
  writeFileSync(secret, HOST.repeat(4096))
  const swap = `cd /v && while true; do for f in a b c d; do echo container-bytes > $f.new && mv -f $f.new race-$f; ln -sfn ${secret} $f.lnk && mv -f $f.lnk race-$f; done; done`
  const id = await runContainer(engine, "hm-bk-swap", swap, {
    HostConfig: { NetworkMode: "none", Mounts: [{ Type: "volume", Source: "hm-bk_data", Target: "/v" }] },
  })
  const count = (await backups()).length
  let made = 0
  try {
    for (let i = 0; i < 2; i++) {
      const res = await call("POST", "/api/backups/local/hm-bk/run")
      expect([201, 502]).toContain(res.status)
      if (res.status !== 201) {
        expect(res.body.error.code).toBe("restic_failed")
        continue
      }
      made++
      expect(res.body.pieces[1].path).toBe("volumes/hm-bk_data")
      expect(restic("repo", ["dump", res.body.pieces[1].snapshot, "/"]).includes(HOST)).toBe(false)
    }
    // A failed run left nothing (restic's snapshot of the files it could read is forgotten too).
    expect((await backups()).length).toBe(count + made)
  } finally {
    await engine.removeContainer(id, { force: true })
  }
  await run("hm-bk_data", "rm -f /v/race-* /v/*.new /v/*.lnk")
}, 60_000)

test("a restore with force over a volume whose container left symlinks to a host folder writes nothing outside the volume", async () => {
  const sentinel = join(dir, "sentinel")
  mkdirSync(sentinel)
  // The backup holds x, a symlink to the host folder, and d/f; the container then leaves d and x as symlinks to it.
  await run("hm-bk3_data", `ln -s ${sentinel} /v/x && mkdir /v/d && echo restored > /v/d/f`)
  const made = await call("POST", "/api/backups/local/hm-bk3/run")
  expect(made.status).toBe(201)
  expect(made.body.pieces.map((p: any) => p.path)).toEqual(["stack.json", "volumes/hm-bk3_data"])
  await run("hm-bk3_data", `rm -r /v/d /v/x && ln -s ${sentinel} /v/d && ln -s ${sentinel} /v/x`)
  expect((await call("DELETE", "/api/stacks/hm-bk3")).status).toBeLessThan(300)
  const res = await call("POST", "/api/backups/local/hm-bk3/restore", { force: true })
  expect(res.status).toBe(201)
  expect(readdirSync(sentinel)).toEqual([])
  expect(await run("hm-bk3_data", "cat /v/d/f && readlink /v/x")).toBe(`restored\n${sentinel}`)
}, 60_000)

test("a restore whose restic is killed midway removes the volume and the stack it made, and its own working volume", async () => {
  const before = (await engine.listVolumes()).map((v) => v.Name).sort()
  const pending = call("POST", "/api/backups/local/hm-bk3/restore", { as: "hm-bk5" })
  const deadline = Date.now() + 30_000
  let pid: number | undefined
  while (Date.now() < deadline && !(pid = resticChild("restore"))) await Bun.sleep(5)
  process.kill(pid!, "SIGSTOP")
  process.kill(pid!, "SIGKILL")
  const res = await pending
  expect(res.status).toBe(502)
  expect(res.body.error.code).toBe("restic_failed")
  expect((await call("GET", "/api/stacks/hm-bk5")).status).toBe(404)
  expect((await engine.listVolumes()).map((v) => v.Name).sort()).toEqual(before)
}, 60_000)

const states = async () =>
  (await engine.listContainers({ all: true, filters: { label: [`${STACK_LABEL}=hm-bk`] } })).map((c) => c.State)

// An exec inside a chroot runs outside the container (as in host.test.ts): the hook has no /data there.
test.skipIf(insideChroot())(
  "a dump hook runs before the snapshot; a stack stopped for it runs again after; a failing hook stops the backup",
  async () => {
    expect((await call("POST", "/api/stacks/hm-bk/apply")).status).toBe(200)
    expect(await states()).toEqual(["running"])
    const res = await call("POST", "/api/backups/local/hm-bk/run", {
      hooks: { exec: { service: "app", command: ["sh", "-c", "echo dumped > /data/dump.sql"] }, stop: true },
    })
    expect(res.status).toBe(201)
    expect(await states()).toEqual(["running"])
    expect(restic("repo", ["dump", res.body.pieces[1].snapshot, "/dump.sql"]).toString()).toBe("dumped\n")

    const count = (await backups()).length
    const failed = await call("POST", "/api/backups/local/hm-bk/run", {
      hooks: { exec: { service: "app", command: ["sh", "-c", "exit 3"] } },
    })
    expect(failed.status).toBe(502)
    expect(failed.body.error).toMatchObject({
      code: "hook_failed",
      message: "the backup's hook in service app exited 3",
    })
    expect((await backups()).length).toBe(count)
  },
  60_000,
)

test("a repository on a full disk fails the backup and leaves no snapshot; the stack is untouched; the metrics count it", async () => {
  expect((await call("POST", "/api/stacks/hm-bk/apply")).status).toBe(200) // running, whether or not the hook's test ran
  const full = join(dir, "full")
  mkdirSync(full)
  expect(spawnSync("mount", ["-t", "tmpfs", "-o", "size=12m", "tmpfs", full]).status).toBe(0)
  expect(
    (
      await call("POST", "/api/backups/repos", {
        name: "small",
        repository: join(full, "repo"),
        password: PASSWORD,
        init: true,
      })
    ).status,
  ).toBe(201)
  // The disk filled to its last byte before the backup: restic's first write fails. (A disk that
  // fills while restic 0.14 uploads several packs at once can make it panic or hang, a race of its
  // own that only the deadline ends; see docs/backups.md.)
  const block = new Uint8Array(4096)
  try {
    for (;;) appendFileSync(join(full, "filler"), block)
  } catch (err) {
    expect((err as NodeJS.ErrnoException).code).toBe("ENOSPC")
  }
  const before = await manifest("hm-bk_data")
  const res = await call("POST", "/api/backups/small/hm-bk/run", { hooks: { stop: true } })
  expect({ status: res.status, error: res.body.error }).toMatchObject({
    status: 507,
    error: { code: "repository_full" },
  })
  expect(await states()).toEqual(["running"])
  const events = (await call("GET", "/api/events/history")).body.filter((e: any) => e.type === "backup")
  expect(events.at(-1)).toMatchObject({ action: "backup_failed", name: "hm-bk", level: "error" })
  // Room again (restic cannot even list a repository whose disk is full): no snapshot was left.
  rmSync(join(full, "filler"))
  expect(await backups("small")).toEqual([])
  const metrics = await (await fetch(`${svc.url}/metrics`)).text()
  expect(metrics).toContain('harbormaster_backup_failures_total{repository="small",stack="hm-bk"} 1\n')
  expect(metrics).toMatch(
    /harbormaster_backup_last_success_timestamp_seconds\{repository="local",stack="hm-bk"\} \d{10}/,
  )
  expect(metrics).toMatch(/harbormaster_backup_last_size_bytes\{repository="local",stack="hm-bk"\} \d{8}/)
  expect(await manifest("hm-bk_data")).toBe(before)
  // ... and a notification, naming the stack and the reason.
  const deadline = Date.now() + 10_000
  const fullNotice = () => notified.find((n) => n.event === "backup_failed" && n.message.includes("disk is full"))
  while (Date.now() < deadline && !fullNotice()) await Bun.sleep(100)
  expect(fullNotice()).toMatchObject({
    stack: "hm-bk",
    message: "backup of hm-bk failed: restic backup: the repository's disk is full",
  })
}, 60_000)

test("run with stream=true answers restic's progress as events, then the result", async () => {
  const res = await fetch(`${svc.url}/api/backups/local/hm-bk/run?stream=true`, { method: "POST" })
  expect(res.status).toBe(200)
  expect(res.headers.get("content-type")).toStartWith("text/event-stream")
  const messages: any[] = []
  for await (const m of sseMessages(res)) messages.push(m)
  answers.push(JSON.stringify(messages))
  const done = messages.at(-1)
  expect(done.type).toBe("done")
  expect(done.result.pieces.map((p: any) => p.path)).toEqual(["stack.json", "volumes/hm-bk_data"])
  const volume = messages.filter((m) => m.type === "progress" && m.piece === "volumes/hm-bk_data")
  expect(volume.length).toBeGreaterThanOrEqual(2)
  // Measured before (the files' bytes), read up to the tar's size, never backwards.
  expect(volume[0].total_bytes).toBeGreaterThan(23 * MiB)
  expect(volume.at(-1).bytes_done).toBe(done.result.pieces[1].bytes)
  expect(volume.map((m) => m.bytes_done)).toEqual(volume.map((m) => m.bytes_done).sort((a, b) => a - b))
  expect((await backups()).map((b) => b.run)).toContain(done.result.run)

  const failed: any[] = []
  for await (const m of sseMessages(
    await fetch(`${svc.url}/api/backups/local/hm-bk/run?stream=true`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ hooks: { exec: { service: "app", command: ["false"] } } }),
    }),
  ))
    failed.push(m)
  expect(failed).toEqual([
    {
      type: "failed",
      error: { status: 502, code: "hook_failed", message: "the backup's hook in service app exited 1" },
    },
  ])

  // The stream's client going away stops the backup: a hook that would run 30 s is left, restic never runs.
  const count = (await backups()).length
  const leave = new AbortController()
  const slow = await fetch(`${svc.url}/api/backups/local/hm-bk/run?stream=true`, {
    method: "POST",
    signal: leave.signal,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ hooks: { exec: { service: "app", command: ["sleep", "30"] } } }),
  })
  expect(slow.status).toBe(200)
  leave.abort()
  const left = async () =>
    (await call("GET", "/api/events/history")).body.filter(
      (e: any) => e.type === "backup" && e.action === "backup_failed" && e.message.includes("its caller went away"),
    )
  const deadline = Date.now() + 15_000
  while (Date.now() < deadline && !(await left()).length) await Bun.sleep(100)
  expect((await left()).length).toBe(1)
  expect((await backups()).length).toBe(count)
}, 60_000)

/** The pid of the service's restic child (restic itself, not yet the shell that confines it) whose command line holds `text`, if one runs. */
function resticChild(text: string): number | undefined {
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const ppid = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")[1]
      const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")
      if (Number(ppid) === svc.proc.pid && argv[0]!.endsWith("restic") && argv.includes(text)) return Number(pid)
    } catch {
      // gone meanwhile
    }
  }
}

test("a backup whose restic is killed midway leaves no snapshot and no helper container", async () => {
  const count = (await backups()).length
  const pending = call("POST", "/api/backups/local/hm-bk/run")
  // Caught while it reads the volume's tar, frozen so that it cannot finish first, then killed.
  const deadline = Date.now() + 30_000
  let pid: number | undefined
  while (Date.now() < deadline && !(pid = resticChild("piece:volumes/hm-bk_data"))) await Bun.sleep(5)
  process.kill(pid!, "SIGSTOP")
  process.kill(pid!, "SIGKILL")
  const res = await pending
  expect(res.status).toBe(502)
  expect(res.body.error.code).toBe("restic_failed")
  expect((await call("GET", "/api/events/history")).body.filter((e: any) => e.type === "backup").at(-1)).toMatchObject({
    action: "backup_failed",
    name: "hm-bk",
  })
  expect(await engine.listContainers({ all: true, filters: { label: [TRANSFER_LABEL] } })).toEqual([])
  // The run's stack.json snapshot was forgotten.
  expect((await backups()).length).toBe(count)
}, 60_000)

test("a schedule backs the stack up again and again, keeps the last by its rule, and checks the repository", async () => {
  const repository = join(dir, "scheduled")
  const added = await call("POST", "/api/backups/repos", {
    name: "sched",
    repository,
    password: PASSWORD,
    init: true,
    schedule: "1s",
    stacks: ["hm-bk"],
    keep: { last: 1 },
    check: "1s",
  })
  expect(added.status).toBe(201)
  expect(added.body).toMatchObject({ schedule: "1s", keep: { last: 1 }, last_check: null })
  const deadline = Date.now() + 45_000
  const done = async () =>
    (await call("GET", "/api/events/history")).body.filter(
      (e: any) => e.type === "backup" && e.action === "backup" && e.message.includes("to sched as"),
    ).length
  while (Date.now() < deadline && (await done()) < 2) await Bun.sleep(200)
  expect(await done()).toBeGreaterThanOrEqual(2)
  expect((await call("DELETE", "/api/backups/repos/sched")).status).toBe(200)
  expect((await call("GET", "/api/backups/repos")).body.map((r: any) => r.name)).toEqual(["local", "small"])
  expect((await call("POST", "/api/backups/local/check")).body).toMatchObject({ ok: true })
  expect((await call("GET", "/api/backups/repos")).body[0].last_check).toMatchObject({ ok: true })
  // keep last 1: each run forgets the one before (a run under way when the repository was removed ends first).
  const pieces = () => {
    const out = spawnSync("restic", ["snapshots", "--json", "--no-lock"], {
      env: { ...process.env, RESTIC_REPOSITORY: repository, RESTIC_PASSWORD: PASSWORD },
    })
    return (JSON.parse(out.stdout.toString() || "[]") as any[]).map((s) => s.paths[0]).sort()
  }
  let left = pieces()
  while (Date.now() < deadline && left.length !== 2) left = (await Bun.sleep(200), pieces())
  expect(left).toEqual(["/stack.json", await mountpoint("hm-bk_data")].sort())
}, 60_000)

test("neither the password nor the stack's secret appears in answers, events or the service's output", async () => {
  await call("GET", "/api/events/history")
  const shown = answers.join("\n")
  expect(shown).not.toContain(PASSWORD)
  expect(shown).not.toContain(SECRET)
  // The service's data outlives it (its own folder goes with it): the restart below reads a copy, with
  // the secret key that seals it (kept beside it, never in it).
  const kept = join(dir, "data")
  cpSync(svc.dataDir, kept, { recursive: true })
  cpSync(svc.keyFile, `${kept}.key`)
  const out = await svc
    .stop()
    .then(
      async () =>
        `${await new Response(svc.proc.stdout as ReadableStream).text()}${await new Response(svc.proc.stderr as ReadableStream).text()}`,
    )
  expect(out).not.toContain(PASSWORD)
  expect(out).not.toContain(SECRET)
  svc = await startService(serviceEnv(), { dataDir: kept })
  // The last restic check is kept across the restart.
  expect((await call("GET", "/api/backups/repos")).body[0]).toMatchObject({
    name: "local",
    last_check: { ok: true, message: "no errors were found" },
  })
}, 60_000)
