// A backup restored on a second server: server a (the control plane) backs a stack with a volume of
// checksummed files up into its restic repository (restic reading the volume's folder) and restores
// it on node b, as a tar of that snapshot, under its own name and under a new one, with the same
// checksums there; b's own inventory blocks a restore over a volume it holds (nothing changes on b),
// force is refused for a node, and an unknown node is a 404. A bind
// mount under SVC_BIND_ROOTS is backed up when asked, and restored to its path only once it is empty
// (a path holding data blocks the restore, unless forced), with its files' checksums, modes and owners.
import { afterAll, beforeAll, expect, test } from "bun:test"
import {
  chownSync,
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Engine } from "#lib/engine/client.ts"
import { cleanup, engineHost, realEngine, TEST_LABEL, testImage } from "../support/engine.ts"
import { startService, type Service } from "../support/service.ts"

let engA: Engine
let engB: Engine
let a: Service
let b: Service
let dir: string
let bindRoot: string
const STACK = "hm-bkn"
const VOLUMES = [`${STACK}_data`, "hm-bkn2_data"]

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

async function call(svc: Service, method: string, path: string, body?: unknown) {
  const res = await fetch(`${svc.url}/api${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  })
  return { status: res.status, body: (await res.json()) as any }
}

/** Runs `script` in a labelled throwaway container with `volume` at /v; its output once it exited 0. */
async function run(engine: Engine, volume: string, script: string): Promise<string> {
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

const manifest = (engine: Engine, volume: string) =>
  run(
    engine,
    volume,
    `cd /v && find . -type f | sort | xargs -r sha256sum && find . | sort | xargs stat -c "%a %u %g %F %n"`,
  )
const stacksOn = async (svc: Service) => (await call(svc, "GET", "/stacks")).body.map((s: any) => s.name).sort()
const volumesOn = async (engine: Engine) =>
  (await engine.listVolumes())
    .map((v) => v.Name)
    .filter((n) => VOLUMES.includes(n))
    .sort()

async function wipe() {
  for (const svc of [a, b])
    for (const name of [STACK, "hm-bkn2", "hm-bkb"])
      await call(svc, "DELETE", `/stacks/${name}?volumes=true`).catch(() => {})
  for (const engine of [engA, engB]) {
    for (const v of VOLUMES) await engine.removeVolume(v, { force: true }).catch(() => {})
    await cleanup(engine)
  }
}

beforeAll(async () => {
  engA = realEngine("a")
  engB = realEngine("b")
  dir = mkdtempSync(join(tmpdir(), "hm-backups-node-"))
  bindRoot = mkdtempSync(join(tmpdir(), "hm-backups-binds-"))
  const env = (which: "a" | "b") => ({
    DOCKER_HOST: engineHost(which),
    SVC_TRANSFER_IMAGE: testImage(),
    SVC_PROBE_TIMEOUT_MS: "3000",
    SVC_BIND_ROOTS: bindRoot,
  })
  ;[a, b] = await Promise.all([startService(env("a")), startService(env("b"))])
  await wipe()
  const token = (await call(a, "POST", "/cluster/token")).body.token
  expect(
    (await call(b, "POST", "/cluster/join", { control_plane_url: a.url, token, name: "b", advertise: b.url })).status,
  ).toBe(200)
  expect(
    (
      await call(a, "POST", "/backups/repos", {
        name: "local",
        repository: join(dir, "repo"),
        password: "pw-node-restore",
        init: true,
      })
    ).status,
  ).toBe(201)
  expect((await call(a, "POST", "/stacks", { name: STACK, content: compose })).status).toBe(201)
  await run(
    engA,
    `${STACK}_data`,
    `for i in $(seq 1 8); do mkdir -p /v/d$((i % 2)); head -c 262144 /dev/urandom > /v/d$((i % 2))/f$i; done; chown 1000:1000 /v/d1/f1 && chmod 600 /v/d1/f1`,
  )
}, 120_000)

afterAll(async () => {
  await wipe()
  await Promise.all([a?.stop(), b?.stop()])
  rmSync(dir, { recursive: true, force: true })
  rmSync(bindRoot, { recursive: true, force: true })
}, 60_000)

test("a backup comes back on node b under its name and a new one, with the same checksums", async () => {
  const before = await manifest(engA, `${STACK}_data`)
  // a's engine is local: restic read the volume's folder, and the node gets it as a tar of that snapshot's tree.
  const made = await call(a, "POST", `/backups/local/${STACK}/run`)
  expect(made.status).toBe(201)
  expect(made.body.pieces.map((p: any) => p.path)).toEqual(["stack.json", `volumes/${STACK}_data`])

  const dry = await call(a, "POST", `/backups/local/${STACK}/restore`, { to: "b", dry_run: true })
  expect(dry.status).toBe(200)
  expect(dry.body).toMatchObject({ restored: false, plan: { target: STACK, blockers: [] } })
  expect(await volumesOn(engB)).toEqual([])

  const same = await call(a, "POST", `/backups/local/${STACK}/restore`, { to: "b" })
  expect(same.status).toBe(201)
  expect(await manifest(engB, `${STACK}_data`)).toBe(before)
  const renamed = await call(a, "POST", `/backups/local/${STACK}/restore`, { to: "b", as: "hm-bkn2" })
  expect(renamed.status).toBe(201)
  expect(await manifest(engB, "hm-bkn2_data")).toBe(before)
  expect(await stacksOn(b)).toEqual(expect.arrayContaining([STACK, "hm-bkn2"]))
  const events = (await call(a, "GET", "/events/history")).body.filter(
    (e: any) => e.type === "backup" && e.action === "restore",
  )
  expect(events.at(-1).message).toContain("as hm-bkn2 on node b")
}, 90_000)

test("node b's own stacks and volumes block a restore there; force is for this server only; an unknown node is 404", async () => {
  await call(b, "DELETE", "/stacks/hm-bkn2")
  const held = await manifest(engB, "hm-bkn2_data")
  const refused = await call(a, "POST", `/backups/local/${STACK}/restore`, { to: "b", as: "hm-bkn2" })
  expect(refused.status).toBe(409)
  expect(refused.body.plan.blockers.map((x: any) => x.code)).toEqual(["volume_exists"])
  expect(await manifest(engB, "hm-bkn2_data")).toBe(held)
  expect(await stacksOn(b)).not.toContain("hm-bkn2")

  const forced = await call(a, "POST", `/backups/local/${STACK}/restore`, { to: "b", as: "hm-bkn2", force: true })
  expect([forced.status, forced.body.error.code]).toEqual([400, "force_local_only"])
  const nowhere = await call(a, "POST", `/backups/local/${STACK}/restore`, { to: "nowhere" })
  expect(nowhere.status).toBe(404)
}, 60_000)

/** Every file under the folder with its bytes' hash, mode and owner. */
function files(root: string): string[] {
  const out: string[] = []
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true }).sort((x, y) => x.name.localeCompare(y.name))) {
      const p = join(d, e.name)
      const st = statSync(p)
      out.push(
        `${p.slice(root.length)} ${(st.mode & 0o7777).toString(8)} ${st.uid}:${st.gid} ${e.isDirectory() ? "dir" : new Bun.CryptoHasher("sha256").update(readFileSync(p)).digest("hex")}`,
      )
      if (e.isDirectory()) walk(p)
    }
  }
  walk(root)
  return out
}

test("a bind under SVC_BIND_ROOTS is backed up when asked and restored to its path once it is empty", async () => {
  const data = join(bindRoot, "data")
  mkdirSync(join(data, "sub"), { recursive: true })
  writeFileSync(join(data, "a.bin"), crypto.getRandomValues(new Uint8Array(65536)))
  writeFileSync(join(data, "sub", "b.txt"), "kept\n")
  chmodSync(join(data, "sub", "b.txt"), 0o600)
  chownSync(join(data, "sub", "b.txt"), 1000, 1000)
  const before = files(data)
  const bound = compose
    .replace("volumes: [data:/data]", `volumes: ["${data}:/data"]`)
    .replace(/volumes:\n  data:\n.*\n$/s, "")
  expect((await call(a, "POST", "/stacks", { name: "hm-bkb", content: bound })).status).toBe(201)

  const plain = await call(a, "POST", "/backups/local/hm-bkb/run")
  expect(plain.body.pieces.map((p: any) => p.path)).toEqual(["stack.json"])
  const withBinds = await call(a, "POST", "/backups/local/hm-bkb/run", { binds: true })
  expect(withBinds.status).toBe(201)
  expect(withBinds.body.pieces.map((p: any) => p.path)).toEqual(["stack.json", `binds${data}`])
  expect((await call(a, "GET", "/backups/local/hm-bkb")).body[0].pieces.map((p: any) => p.path)).toEqual([
    "stack.json",
    `binds${data}`,
  ])

  expect((await call(a, "DELETE", "/stacks/hm-bkb")).status).toBeLessThan(300)
  writeFileSync(join(data, "a.bin"), "changed since")
  const blocked = await call(a, "POST", "/backups/local/hm-bkb/restore", { binds: true, dry_run: true })
  expect(blocked.body.plan.blockers.map((x: any) => x.code)).toEqual(["bind_not_empty"])
  const refused = await call(a, "POST", "/backups/local/hm-bkb/restore", { binds: true })
  expect(refused.status).toBe(409)
  expect(files(data)).not.toEqual(before)
  expect((await call(a, "POST", "/backups/local/hm-bkb/restore", { binds: true, to: "b" })).body.error.code).toBe(
    "binds_local_only",
  )

  rmSync(data, { recursive: true })
  const restored = await call(a, "POST", "/backups/local/hm-bkb/restore", { binds: true })
  expect(restored.status).toBe(201)
  expect(files(data)).toEqual(before)
  expect(readdirSync(bindRoot)).toEqual(["data"])
}, 60_000)
