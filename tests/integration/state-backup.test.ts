// The service's own state backed up into a real restic repository and restored on "a new machine":
// `restore-state` into an empty data directory gives every file of the state byte for byte with its
// mode (the stacks' folders, the clear rooms and intents left out), none of them holding a secret in
// the clear; a service started there with the key reads the stack, its versions, its secret and the
// backup repository. A restore into a data directory that holds anything is refused.
import { afterAll, beforeAll, expect, test } from "bun:test"
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Engine } from "#lib/engine/client.ts"
import { newSecretKey } from "#lib/data/sealed.ts"
import { NOT_STATE } from "#lib/backups/state.ts"
import { cleanup, engineHost, realEngine, TEST_LABEL, testImage } from "../support/engine.ts"
import { startService, type Service } from "../support/service.ts"

const NAME = "hm-state"
const SECRET = "state-s3cret-4b7d"
const PASSWORD = "pw-state-91aa"
const KEY = Buffer.from(newSecretKey().bytes).toString("hex")
const root = join(import.meta.dir, "../..")
let engine: Engine
let dir: string
let svc: Service
let restored: Service | undefined

const compose = `services:
  app:
    image: ${testImage()}
    command: ["sh", "-c", "trap 'exit 0' TERM; while true; do sleep 0.2; done"]
    environment:
      TOKEN: \${TOKEN}
    labels: { ${TEST_LABEL}: "1" }
`
const env = () => ({ DOCKER_HOST: engineHost(), SVC_SECRET_KEY: KEY })

async function call(s: Service, method: string, path: string, body?: unknown) {
  const res = await fetch(`${s.url}/api${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  })
  return { status: res.status, body: (await res.json().catch(() => null)) as any }
}

/** Every file under `at`, relative, but those of what is no state. */
const stateFiles = (at: string) =>
  (readdirSync(at, { recursive: true }) as string[])
    .filter((f) => !NOT_STATE.some((p) => f === p || f.startsWith(`${p}/`)))
    .filter((f) => statSync(join(at, f)).isFile())
    .sort()

function restoreState(target: string) {
  writeFileSync(join(dir, "password"), PASSWORD)
  return Bun.spawnSync(
    [
      "bun",
      join(root, "server.ts"),
      "restore-state",
      "--repository",
      join(dir, "repo"),
      "--password-file",
      join(dir, "password"),
      "--target",
      target,
    ],
    { env: { ...process.env, SVC_DATA: target }, stdout: "pipe", stderr: "pipe" },
  )
}

beforeAll(async () => {
  engine = realEngine()
  await cleanup(engine)
  dir = mkdtempSync(join(tmpdir(), "hm-state-"))
  svc = await startService(env(), { dataDir: join(dir, "data") })
  const repo = { name: "local", repository: join(dir, "repo"), password: PASSWORD, init: true }
  expect((await call(svc, "POST", "/backups/repos", repo)).status).toBe(201)
  const made = await call(svc, "POST", "/stacks", {
    name: NAME,
    content: compose,
    env: [{ key: "TOKEN", value: SECRET, secret: true }],
  })
  expect(made.status).toBe(201)
  expect((await call(svc, "POST", `/stacks/${NAME}/apply`)).status).toBe(200)
}, 120_000)

afterAll(async () => {
  for (const s of [restored, svc]) {
    if (!s || s.proc.exitCode !== null) continue
    await call(s, "DELETE", `/stacks/${NAME}`).catch(() => {})
    await s.stop()
  }
  await cleanup(engine)
  rmSync(dir, { recursive: true, force: true })
}, 120_000)

test("the state restored into an empty data directory is every record of it, sealed; a service started there reads it", async () => {
  const backup = await call(svc, "POST", "/backups/local/state")
  expect(backup.status).toBe(201)
  const listed = await call(svc, "GET", "/backups/local/state")
  expect(listed.body[0]).toMatchObject({ path: join(dir, "data") })
  expect(listed.body[0].snapshot.slice(0, 8)).toBe(backup.body.snapshot.slice(0, 8))
  await svc.stop()

  const target = join(dir, "new", "data")
  const run = restoreState(target)
  expect([run.exitCode, run.stderr.toString()]).toEqual([0, ""])
  expect(run.stdout.toString()).toContain(`restored the state backup ${backup.body.snapshot.slice(0, 8)}`)

  const before = stateFiles(join(dir, "data"))
  expect(before).toContain(`records/${NAME}/env.json`)
  expect(before).toContain("backups/repos.json")
  expect(stateFiles(target)).toEqual(before)
  for (const f of before) {
    const [a, b] = [join(dir, "data", f), join(target, f)]
    expect([f, readFileSync(b).equals(readFileSync(a)), statSync(b).mode]).toEqual([f, true, statSync(a).mode])
    const text = readFileSync(b, "utf8")
    if (text.includes(SECRET) || text.includes(PASSWORD)) throw new Error(`${f} holds a secret in the clear`)
  }
  expect(readdirSync(target)).not.toContain("stacks")

  restored = await startService(env(), { dataDir: target })
  const stack = await call(restored, "GET", `/stacks/${NAME}`)
  expect([stack.status, stack.body.managed, stack.body.current_version]).toEqual([200, true, 2])
  const versions = (await call(restored, "GET", `/stacks/${NAME}/versions`)).body
  expect(versions.map((v: { version: number }) => v.version)).toEqual([1, 2])
  expect(JSON.parse(restored.opened(join(target, "records", NAME, "env.json")))).toEqual([
    { key: "TOKEN", value: SECRET, secret: true },
  ])
  expect((await call(restored, "GET", "/backups/repos")).body.map((r: { name: string }) => r.name)).toEqual(["local"])
  // The stack applies from the restored records, its folder made anew.
  expect((await call(restored, "POST", `/stacks/${NAME}/apply`)).status).toBe(200)
}, 180_000)

test("a restore into a data directory that holds anything is refused and leaves it as it was", () => {
  const target = join(dir, "busy")
  rmSync(target, { recursive: true, force: true })
  Bun.spawnSync(["mkdir", "-p", target])
  writeFileSync(join(target, "server.json"), "{}")
  const run = restoreState(target)
  expect(run.exitCode).toBe(1)
  expect(run.stdout.toString()).toContain("is not empty")
  expect(readdirSync(target)).toEqual(["server.json"])
}, 60_000)
