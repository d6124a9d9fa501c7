// Secrets at rest against the real service, engine and compose CLI: the first start makes the key file
// beside the data directory (0600), a stack's secret reaches its container through compose while no
// file of the data directory holds it in the clear and nothing is left in the clear rooms; the key is
// rotated with `secret-key rotate` and the next start seals every file with the new key, the stack
// still applying with its secret; a start with another key stops with the key it lacks; a systemd
// credential gives the key without any key file.
import { afterAll, beforeAll, expect, test } from "bun:test"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Engine } from "#lib/engine/client.ts"
import { STACK_LABEL } from "#lib/engine/containers.ts"
import { readKeyFile } from "#lib/data/secret-key.ts"
import { newSecretKey, sealedWith } from "#lib/data/sealed.ts"
import { cleanup, engineHost, realEngine, TEST_LABEL, testImage } from "../support/engine.ts"
import { startService, type Service } from "../support/service.ts"

const SECRET = "at-rest-s3cret-7e1f"
const NAME = "hm-sealed"
const root = join(import.meta.dir, "../..")
let engine: Engine
let dataDir: string
let svc: Service | undefined

const compose = `services:
  app:
    image: ${testImage()}
    command: ["sh", "-c", "trap 'exit 0' TERM; while true; do sleep 0.2; done"]
    environment:
      DB_PASSWORD: \${DB_PASSWORD}
    labels: { ${TEST_LABEL}: "1" }
`

beforeAll(async () => {
  engine = realEngine()
  await cleanup(engine)
  dataDir = join(mkdtempSync(join(tmpdir(), "hm-sealed-")), "data")
}, 60_000)
afterAll(async () => {
  if (svc) {
    await fetch(`${svc.url}/api/stacks/${NAME}`, { method: "DELETE" }).catch(() => {})
    await svc.stop()
  }
  await cleanup(engine)
  rmSync(join(dataDir, ".."), { recursive: true, force: true })
}, 60_000)

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(`${svc!.url}/api${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  })
  return { status: res.status, body: (await res.json()) as any }
}

/** Files of the data directory (the stacks' folders, their containers' ground, left out) that hold the secret in the clear. */
const leaks = () =>
  (readdirSync(dataDir, { recursive: true }) as string[])
    .filter((f) => !f.startsWith("stacks"))
    .map((f) => join(dataDir, f))
    .filter((f) => statSync(f).isFile() && readFileSync(f, "utf8").includes(SECRET))

const containerEnv = async () => {
  const [c] = await engine.listContainers({ filters: { label: [`${STACK_LABEL}=${NAME}`] } })
  return ((await engine.inspectContainer(c!.Id)).Config as { Env: string[] }).Env
}

const sealedFiles = () => ["env.json", "run.json", "versions/1.json"].map((f) => join(dataDir, "records", NAME, f))

test("the first start makes the key file; the secret reaches the container and no file of the data directory holds it", async () => {
  svc = await startService({ DOCKER_HOST: engineHost() }, { dataDir })
  expect(svc.keyFile).toBe(`${dataDir}.key`)
  expect(statSync(svc.keyFile).mode & 0o777).toBe(0o600)
  const deployed = await call("POST", "/stacks", {
    name: NAME,
    content: compose,
    env: [{ key: "DB_PASSWORD", value: SECRET, secret: true }],
  })
  expect(deployed.status).toBe(201)
  expect(await containerEnv()).toContain(`DB_PASSWORD=${SECRET}`)
  expect(leaks()).toEqual([])
  const key = readKeyFile(svc.keyFile)!
  for (const f of sealedFiles()) expect(sealedWith(readFileSync(f, "utf8"))).toBe(key.id)
  expect(svc.opened(join(dataDir, "records", NAME, "env.json"))).toContain(SECRET)
  // compose's rooms are gone with their runs: the clear root is empty.
  expect(readdirSync(join(dataDir, "clear"))).toEqual([])
}, 120_000)

test("a rotation: the next start seals every file with the new key, and the stack applies with its secret", async () => {
  const before = readKeyFile(svc!.keyFile)!
  svc!.proc.kill()
  await svc!.proc.exited
  const rotate = Bun.spawnSync(["bun", join(root, "server.ts"), "secret-key", "rotate"], {
    env: { ...process.env, SVC_DATA: dataDir },
  })
  expect(rotate.exitCode).toBe(0)
  expect(rotate.stdout.toString()).toContain(`the key ${before.id} is now ${dataDir}.key.previous`)
  const after = readKeyFile(`${dataDir}.key`)!
  expect(after.id).not.toBe(before.id)

  svc = await startService({ DOCKER_HOST: engineHost() }, { dataDir })
  for (const f of sealedFiles()) expect(sealedWith(readFileSync(f, "utf8"))).toBe(after.id)
  expect((await call("POST", `/stacks/${NAME}/apply`)).status).toBe(200)
  expect(await containerEnv()).toContain(`DB_PASSWORD=${SECRET}`)
  expect(leaks()).toEqual([])
  // Every file is sealed with the new key: the previous one can go, and the next start needs only the new one.
  rmSync(`${dataDir}.key.previous`)
  svc.proc.kill()
  await svc.proc.exited
  svc = await startService({ DOCKER_HOST: engineHost() }, { dataDir })
  expect((await call("GET", `/stacks/${NAME}/versions`)).body.length).toBe(2)
}, 180_000)

test("a start with another key stops and names the key the data directory is sealed with", async () => {
  const sealedWithNow = readKeyFile(`${dataDir}.key`)!.id
  const other = Buffer.from(newSecretKey().bytes).toString("hex")
  const refused = await startService({ DOCKER_HOST: engineHost(), SVC_SECRET_KEY: other }, { dataDir }).then(
    () => "started",
    (err: Error) => err.message,
  )
  expect(refused).toContain(`is sealed with the secret key ${sealedWithNow}, which this service was not given`)
  expect(refused).not.toContain(SECRET)
}, 60_000)

test("a systemd credential gives the key: no key file is made", async () => {
  const creds = mkdtempSync(join(tmpdir(), "hm-creds-"))
  const key = newSecretKey()
  writeFileSync(join(creds, "secret-key"), Buffer.from(key.bytes).toString("hex"), { mode: 0o600 })
  const other = join(mkdtempSync(join(tmpdir(), "hm-sealed-cred-")), "data")
  mkdirSync(other)
  const withCredential = await startService(
    { DOCKER_HOST: engineHost(), CREDENTIALS_DIRECTORY: creds },
    { dataDir: other },
  )
  try {
    const token = await fetch(`${withCredential.url}/api/cluster/token`, { method: "POST" })
    expect(token.status).toBe(201)
    expect(sealedWith(readFileSync(join(other, "cluster.json"), "utf8"))).toBe(key.id)
    expect(existsSync(`${other}.key`)).toBe(false)
  } finally {
    await withCredential.stop()
    rmSync(join(other, ".."), { recursive: true, force: true })
    rmSync(creds, { recursive: true, force: true })
  }
}, 60_000)
