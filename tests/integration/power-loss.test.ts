// Writes that survive a power loss, on a real file system: the data directory lies on an ext4 image
// mounted through a loop device with a journal commit interval of 60 s (nothing reaches the image but
// what a sync forces during a round). While clients write (the environment, a stack's file, new stacks
// deployed and removed, the last of them a removal answered just before the cut), the service is
// killed and the image copied at once: the copy is the disk as a power loss would leave it, without
// the page cache. Mounted anew (ext4 replays its journal), every write that was answered is there,
// every removal answered stays removed, every file parses or opens, nothing is half-written, and the
// service starts on it; a file written without a sync before the cut is not there (the loss is real).
import { afterAll, beforeAll, expect, test } from "bun:test"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Engine } from "#lib/engine/client.ts"
import { isSealed, newSecretKey, unseal } from "#lib/data/sealed.ts"
import { parseKey } from "#lib/data/secret-key.ts"
import { cleanup, engineHost, realEngine, TEST_LABEL, testImage } from "../support/engine.ts"
import { startService, type Service } from "../support/service.ts"

const ROUNDS = 4
const KEY = Buffer.from(newSecretKey().bytes).toString("hex")
const keys = { current: parseKey(KEY, "key"), previous: [] }
let engine: Engine
let base: string
let image: string
let mnt: string
let svc: Service

const sh = (...cmd: string[]) => {
  const run = Bun.spawnSync(cmd, { stderr: "pipe" })
  if (run.exitCode !== 0) throw new Error(`${cmd.join(" ")}: ${run.stderr.toString()}`)
}
const env = () => ({ DOCKER_HOST: engineHost(), SVC_SECRET_KEY: KEY })
const idle = `services:
  app:
    image: ${testImage()}
    command: ["sh", "-c", "trap 'exit 0' TERM; while true; do sleep 0.2; done"]
    labels: { ${TEST_LABEL}: "1" }
`

async function call(s: Service, method: string, path: string, body?: unknown) {
  const res = await fetch(`${s.url}/api${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  })
  return { status: res.status, body: (await res.json().catch(() => null)) as any }
}

beforeAll(async () => {
  engine = realEngine()
  await cleanup(engine)
  base = mkdtempSync(join(tmpdir(), "hm-power-"))
  image = join(base, "disk.img")
  mnt = join(base, "mnt")
  mkdirSync(mnt)
  sh("truncate", "-s", "160M", image)
  sh("mkfs.ext4", "-q", "-F", image)
  sh("mount", "-o", "loop,commit=60", image, mnt)
  svc = await startService(env(), { dataDir: join(mnt, "data") })
  const res = await call(svc, "POST", "/stacks", {
    name: "hm-pl",
    content: idle,
    env: [{ key: "K", value: "v-0", secret: true }],
    files: { "conf.txt": "c-0" },
  })
  expect([res.status, res.body?.error]).toEqual([201, undefined])
}, 120_000)

afterAll(async () => {
  svc.proc.kill("SIGKILL")
  await svc.proc.exited
  svc = await startService(env(), { dataDir: join(mnt, "data") })
  for (const s of (await call(svc, "GET", "/stacks")).body as { name: string }[])
    if (s.name.startsWith("hm-pl")) await call(svc, "DELETE", `/stacks/${s.name}`)
  svc.proc.kill()
  await svc.proc.exited
  Bun.spawnSync(["umount", mnt])
  await cleanup(engine)
  rmSync(base, { recursive: true, force: true })
}, 180_000)

/** Every file under `dir`, relative. */
const filesUnder = (dir: string) =>
  (readdirSync(dir, { recursive: true }) as string[]).filter((f) => statSync(join(dir, f)).isFile())

test(`${ROUNDS} power losses in the middle of writes: every answered write is on the disk, nothing half-written`, async () => {
  const report: string[] = []
  for (let round = 1; round <= ROUNDS; round++) {
    // What was sent, in order, and the index of the last one answered.
    const sent = { env: [] as string[], file: [] as string[] }
    const answered = { env: -1, file: -1 }
    const created: string[] = []
    const removed: string[] = []
    let stop = false
    const envWriter = async () => {
      for (let k = 0; !stop; k++) {
        const value = `v-${round}-${k}`
        sent.env.push(value)
        const res = await call(svc, "PUT", "/stacks/hm-pl/env", [{ key: "K", value }]).catch(() => null)
        if (res?.status === 200) answered.env = sent.env.indexOf(value)
      }
    }
    const fileWriter = async () => {
      for (let k = 0; !stop; k++) {
        const content = `c-${round}-${k}`
        sent.file.push(content)
        const res = await call(svc, "PUT", "/stacks/hm-pl/files/conf.txt", { content }).catch(() => null)
        if (res && res.status < 300) answered.file = sent.file.indexOf(content)
      }
    }
    const stackWriter = async () => {
      for (let k = 0; !stop; k++) {
        const name = `hm-pl-${round}-${k}`
        const res = await call(svc, "POST", "/stacks", {
          name,
          content: idle,
          env: [{ key: "S", value: `s-${round}-${k}`, secret: true }],
        }).catch(() => null)
        if (res?.status !== 201) continue
        created.push(name)
        if (k % 2 && (await call(svc, "DELETE", `/stacks/${name}`).catch(() => null))?.status === 200)
          removed.push(name)
      }
    }
    const writers = [envWriter(), fileWriter(), stackWriter()]
    await Bun.sleep(1000 + Math.random() * 2000)
    stop = true
    await Promise.all(writers)
    // The last write before the cut: a removal, answered, after which nothing else syncs.
    const last = created.find((n) => !removed.includes(n))
    if (last && (await call(svc, "DELETE", `/stacks/${last}`)).status === 200) removed.push(last)
    // A file written without a sync: the cut must lose it, or the image would not be a power loss.
    writeFileSync(join(mnt, "unsynced.txt"), "written, never synced")

    svc.proc.kill("SIGKILL")
    await svc.proc.exited
    const crash = join(base, `crash-${round}.img`)
    sh("cp", "--sparse=always", image, crash)
    const at = join(base, `crash-${round}`)
    mkdirSync(at)
    sh("mount", "-o", "loop", crash, at)
    try {
      const data = join(at, "data")
      const unsynced = join(at, "unsynced.txt")
      expect(existsSync(unsynced) ? readFileSync(unsynced, "utf8") : "lost").not.toBe("written, never synced")
      const records = join(data, "records")
      // Every file parses, or opens and parses: nothing half-written.
      const torn = filesUnder(records)
        .filter((f) => f.endsWith(".json"))
        .filter((f) => {
          const text = readFileSync(join(records, f), "utf8")
          try {
            JSON.parse(isSealed(text) ? unseal(text, f, keys) : text)
            return false
          } catch {
            return true
          }
        })
      expect(torn).toEqual([])
      const opened = (f: string) => JSON.parse(unseal(readFileSync(join(records, f), "utf8"), f, keys))
      // The environment and the file: the last answered value, or one sent after it.
      const value = opened("hm-pl/env.json").find((e: { key: string }) => e.key === "K").value
      expect(sent.env.indexOf(value)).toBeGreaterThanOrEqual(answered.env)
      const file = JSON.parse(readFileSync(join(records, "hm-pl/files.json"), "utf8"))["conf.txt"]
      expect(sent.file.indexOf(file)).toBeGreaterThanOrEqual(answered.file)
      // Stacks answered as created are there with their first version; those answered as removed are gone.
      const kept = created.filter((n) => !removed.includes(n))
      for (const n of kept) expect([n, opened(`${n}/versions/1.json`).version]).toEqual([n, 1])
      expect(removed.filter((n) => existsSync(join(records, n)))).toEqual([])
      // The service starts on the disk as it was left, and reads it.
      const after = await startService(env(), { dataDir: data })
      try {
        const listed = ((await call(after, "GET", "/stacks")).body as { name: string; managed: boolean }[])
          .filter((s) => s.managed)
          .map((s) => s.name)
        expect(listed).toEqual(expect.arrayContaining(["hm-pl", ...kept]))
        expect((await call(after, "GET", "/stacks/hm-pl/env")).status).toBe(200)
      } finally {
        after.proc.kill()
        await after.proc.exited
      }
      expect(filesUnder(records).filter((f) => f.includes(".tmp-"))).toEqual([])
      report.push(
        `round ${round}: ${answered.env + 1} env and ${answered.file + 1} file writes answered, ${created.length} stacks made, ${removed.length} removed`,
      )
    } finally {
      sh("umount", at)
      rmSync(crash)
    }
    rmSync(join(mnt, "unsynced.txt"))
    svc = await startService(env(), { dataDir: join(mnt, "data") })
  }
  console.log(report.join("\n"))
}, 600_000)
