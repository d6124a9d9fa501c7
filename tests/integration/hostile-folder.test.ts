// A stack's folder is its containers' ground: a stack that binds it (`.:/stack`) hands them its
// files and data, and they may rewrite or replace anything there at any moment. Against the real
// engines and compose CLI, containers that rewrite and plant links in their own stack's folder while
// the service works, with a folder of the test's own standing in for the host:
// - a compose file written into the folder is never run: compose runs the model the service checked,
//   on a redeploy and on the undo after a failed `up`;
// - links named like the service's own files (compose.yaml, versions, env.json, a `loop -> ..`) are
//   never followed: the compose route answers the stack's text, a redeploy writes its version (a
//   secret in it) where no container reaches, and the service starts again over them;
// - files named update-policy.json, __proto__, constructor and prototype are ordinary stack files.
import { afterAll, beforeAll, expect, test } from "bun:test"
import { createHash } from "node:crypto"
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, relative } from "node:path"
import { STACK_LABEL } from "#lib/engine/containers.ts"
import type { Engine } from "#lib/engine/client.ts"
import { cleanup, engineHost, realEngine, TEST_LABEL, testImage } from "../support/engine.ts"
import { startService, type Service } from "../support/service.ts"

let engine: Engine
let svc: Service
let dataDir: string
/** Stands in for the host: no container of a stack may reach it. */
let host: string
const STACKS = ["hm-rewrite", "hm-links", "hm-names", "hm-dotenv"]
const env = () => ({ DOCKER_HOST: engineHost("a"), SVC_TRANSFER_IMAGE: testImage() })

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(`${svc.url}${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  })
  const text = await res.text()
  return { status: res.status, body: (text ? JSON.parse(text) : null) as any }
}

/** Every file under the host stand-in with a digest of its content. */
const hostState = () =>
  Object.fromEntries(
    readdirSync(host, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => [
        relative(host, join(e.parentPath, e.name)),
        createHash("sha256")
          .update(readFileSync(join(e.parentPath, e.name)))
          .digest("hex"),
      ]),
  )

/** A service that runs `script` in a loop with the stack's folder bound at /stack. */
const planting = (script: string, extra = "") => `services:
  app:
    image: ${testImage()}
    command: ["sh", "-c", "trap 'exit 0' TERM; while true; do ${script}; sleep 0.2; done"]
    stop_grace_period: 1s
    volumes: [".:/stack"]
    labels: { ${TEST_LABEL}: "1" }
${extra}`

/** What the project's containers are: service names and every bind source, running or not. */
async function running(project: string) {
  const list = await engine.listContainers({ all: true, filters: { label: [`${STACK_LABEL}=${project}`] } })
  const inspected = await Promise.all(list.map((c) => engine.inspectContainer(c.Id)))
  return {
    services: [...new Set(list.map((c) => c.Labels["com.docker.compose.service"]))].sort(),
    sources: inspected.flatMap((i: any) => (i.Mounts ?? []).map((m: any) => m.Source as string)),
  }
}

/** Waits until the container has planted what it plants (a path in the stack's folder exists). */
async function planted(name: string, path: string) {
  for (let i = 0; i < 100; i++) {
    if (readdirSync(join(dataDir, "stacks", name)).includes(path)) return
    await Bun.sleep(100)
  }
  throw new Error(`${path} was never planted in ${name}'s folder`)
}

beforeAll(async () => {
  engine = realEngine("a")
  await cleanup(engine)
  host = mkdtempSync(join(tmpdir(), "hm-host-"))
  writeFileSync(join(host, "hostfile.txt"), "the host's own file\n")
  // Named as the atomic writer's temporary files of a process long gone: a sweep that followed links would remove it.
  writeFileSync(join(host, "keep.tmp-99999999-abc"), "not the service's\n")
  dataDir = mkdtempSync(join(tmpdir(), "hm-hostile-"))
  svc = await startService(env(), { dataDir })
}, 120_000)

afterAll(async () => {
  for (const name of STACKS) await call("DELETE", `/api/stacks/${name}`).catch(() => {})
  for (const c of await engine.listContainers({ all: true }))
    if (STACKS.includes(c.Labels[STACK_LABEL] ?? "")) await engine.removeContainer(c.Id, { force: true })
  await cleanup(engine)
  await svc.stop()
  rmSync(dataDir, { recursive: true, force: true })
  rmSync(host, { recursive: true, force: true })
}, 120_000)

test("a compose file a container writes into its folder is never run: not on a redeploy, not on the undo of a failed up", async () => {
  const evil = `services:\n  evil:\n    image: ${testImage()}\n    command: ["sleep", "1000"]\n    volumes: ["${host}:/h"]\n    labels: { ${TEST_LABEL}: "1" }\n`
  // The container copies a compose file binding the host over every name compose might read.
  const copy = ["compose.yaml", "docker-compose.yml", "compose.override.yaml", "run.json", ".env"]
    .map((f) => `cp /stack/evil.yaml /stack/${f}`)
    .join("; ")
  const content = planting(copy)
  const first = await call("POST", "/api/stacks", { name: "hm-rewrite", content, files: { "evil.yaml": evil } })
  expect([first.status, first.body.error]).toEqual([201, undefined])
  await planted("hm-rewrite", "run.json")

  const applied = await call("POST", "/api/stacks/hm-rewrite/apply")
  expect([applied.status, applied.body.error]).toEqual([200, undefined])
  expect(applied.body.current_version).toBe(2)
  let now = await running("hm-rewrite")
  expect(now.services).toEqual(["app"])
  expect(now.sources.filter((s) => s.startsWith(host))).toEqual([])

  // A deploy whose up fails (an image no engine has) is undone with the model that ran before.
  const failing = await call("POST", "/api/stacks", {
    name: "hm-rewrite",
    content: content.replace(testImage(), "hm-test/absent:none"),
  })
  expect(failing.status).toBeGreaterThanOrEqual(400)
  now = await running("hm-rewrite")
  expect(now.services).toEqual(["app"])
  expect(now.sources.filter((s) => s.startsWith(host))).toEqual([])
  expect((await call("GET", "/api/stacks/hm-rewrite/compose")).body.content).toBe(content)
  expect(Object.keys(hostState()).sort()).toEqual(["hostfile.txt", "keep.tmp-99999999-abc"])
}, 180_000)

test("links a container plants under the service's old names are never followed, and the service starts again over them", async () => {
  const before = hostState()
  const links = [
    `ln -sfn ${host}/hostfile.txt /stack/compose.yaml`,
    `ln -sfn ${host}/hostfile.txt /stack/env.json`,
    `ln -sfn ${host}/hostfile.txt /stack/state.json`,
    `ln -sfn ${host} /stack/versions`,
    `ln -sfn ${host} /stack/host`,
    "ln -sfn .. /stack/loop",
  ].join("; ")
  const content = planting(links)
  const deployed = await call("POST", "/api/stacks", {
    name: "hm-links",
    content,
    env: [{ key: "DB_PASSWORD", value: "s3cret-hostile-1", secret: true }],
  })
  expect([deployed.status, deployed.body.error]).toEqual([201, undefined])
  await planted("hm-links", "loop")

  expect((await call("GET", "/api/stacks/hm-links/compose")).body.content).toBe(content)
  // A redeploy with a new secret writes its version where no container reaches.
  const changed = await call("PUT", "/api/stacks/hm-links/env", [
    { key: "DB_PASSWORD", value: "s3cret-hostile-2", secret: true },
  ])
  expect(changed.status).toBe(200)
  const applied = await call("POST", "/api/stacks/hm-links/apply")
  expect([applied.status, applied.body.error]).toEqual([200, undefined])
  expect((await call("GET", "/api/stacks/hm-links/versions")).body.map((v: { version: number }) => v.version)).toEqual([
    1, 2,
  ])
  expect(hostState()).toEqual(before)

  // The service starts again with a `loop -> ..` and links to the host in a stack's folder, and sweeps nothing there.
  await svc.stop()
  svc = await startService(env(), { dataDir })
  expect((await call("GET", "/api/stacks/hm-links")).body.current_version).toBe(2)
  expect(hostState()).toEqual(before)
  expect(readdirSync(dataDir).sort()).toEqual(expect.arrayContaining(["records", "stacks"]))
}, 180_000)

test("update-policy.json, __proto__, constructor and prototype are ordinary files of a stack", async () => {
  // Entries, not an object literal: `__proto__: ...` in a literal sets the prototype, and the body is written by hand for the same reason.
  const files: [string, string][] = [
    ["update-policy.json", "not json at all"],
    ["update-history.json", "["],
    ["__proto__", "p\n"],
    ["constructor", "c\n"],
    ["prototype", "t\n"],
  ]
  const paths = files.map(([p]) => p).sort()
  const body = `{"name":"hm-names","content":${JSON.stringify(planting("true"))},"files":{${files.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(",")}}}`
  const res = await fetch(`${svc.url}/api/stacks`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
  })
  expect(res.status).toBe(201)
  expect((await res.json()).files).toEqual(paths)
  for (const [p, content] of files) {
    expect(readFileSync(join(dataDir, "stacks/hm-names", p), "utf8")).toBe(content)
    expect((await call("GET", `/api/stacks/hm-names/files/${p}`)).body.content).toBe(content)
  }
  expect((await call("GET", "/api/stacks/hm-names/policy")).status).toBe(200)
  expect((await call("PUT", "/api/stacks/hm-names/policy", { auto_update: "off" })).status).toBe(200)
  expect((await call("GET", "/api/stacks/hm-names/updates")).status).toBe(200)
  // A redeploy that leaves files out keeps the stored ones, all of them.
  const again = await call("POST", "/api/stacks", { name: "hm-names", content: planting("true") })
  expect(again.body.files).toEqual(paths)
}, 120_000)

test("env_file: .env is the stack's environment, not a .env a container wrote into its folder", async () => {
  const content = `${planting("echo PLANTED=from-the-container > /stack/.env")}    env_file: .env\n`
  const deployed = await call("POST", "/api/stacks", {
    name: "hm-dotenv",
    content,
    env: [{ key: "PLANTED", value: "from-the-stack" }],
  })
  expect([deployed.status, deployed.body.error]).toEqual([201, undefined])
  await planted("hm-dotenv", ".env")
  const applied = await call("POST", "/api/stacks/hm-dotenv/apply")
  expect([applied.status, applied.body.error]).toEqual([200, undefined])
  const [c] = await engine.listContainers({ all: true, filters: { label: [`${STACK_LABEL}=hm-dotenv`] } })
  expect((await engine.inspectContainer(c!.Id)).Config.Env).toContain("PLANTED=from-the-stack")
  expect((await engine.inspectContainer(c!.Id)).Config.Env).not.toContain("PLANTED=from-the-container")
}, 120_000)
