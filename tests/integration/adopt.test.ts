// Adopting compose projects brought up by hand with the real compose CLI (v1 or v2, as the flavour
// has it), through the real service process: the containers keep their ids, and the adopted stack is
// then updated, copied and rolled back like any other.
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { SERVICE_LABEL, STACK_LABEL } from "#lib/engine/containers.ts"
import type { Engine } from "#lib/engine/client.ts"
import { cleanup, engineHost, realEngine, TEST_LABEL, testImage } from "../support/engine.ts"
import { composeByHand } from "../support/compose-cli.ts"
import { startService, type Service } from "../support/service.ts"

let engine: Engine
let svc: Service
let root: string
const SECRET = "adopt-s3cret-value"
const PROJECTS = ["hm-shop", "hm-outside", "hm-edited", "hm-recreate", "hm-two"]
const COPY = "hm-shop-copy"
/** Compose v1 on a busy machine takes tens of seconds per command. */
const SLOW = 240_000

const composeFile = (extra = "") => `services:
  web:
    image: ${testImage()}
    command: ["sh", "-c", "trap 'exit 0' TERM; while true; do sleep 0.2; done"]
    environment:
      GREETING: \${GREETING}
      DB_PASSWORD: \${DB_PASSWORD}
    labels: { ${TEST_LABEL}: "1" }
${extra}`

/** A project folder with compose.yaml and .env, brought up by hand. */
function upProject(dir: string, project: string, file: string): void {
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, "compose.yaml"), file)
  writeFileSync(join(dir, ".env"), `GREETING=hello\nDB_PASSWORD=${SECRET}\n`)
  composeByHand(dir, project, "up", "-d")
}

const api = (path: string, init?: RequestInit) => fetch(`${svc.url}/api${path}`, init)
const send = (method: string, path: string, body?: unknown) =>
  api(path, {
    method,
    ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  })
const adopt = (name: string, body: unknown = {}) => send("POST", `/stacks/${name}/adopt`, body)
const ids = async (project: string) =>
  (await engine.listContainers({ all: true, filters: { label: [`${STACK_LABEL}=${project}`] } }))
    .map((c) => c.Id)
    .sort()
const stackDirs = () => (existsSync(join(svc.dataDir, "stacks")) ? readdirSync(join(svc.dataDir, "stacks")).sort() : [])
async function envOf(project: string): Promise<string[]> {
  const c = (
    await engine.listContainers({
      all: true,
      filters: { label: [`${STACK_LABEL}=${project}`, `${SERVICE_LABEL}=web`] },
    })
  )[0]!
  return (await engine.inspectContainer(c.Id)).Config.Env ?? []
}

beforeAll(async () => {
  engine = realEngine()
  await cleanup(engine)
  root = mkdtempSync(join(tmpdir(), "hm-adopt-"))
  mkdirSync(join(root, "allowed"))
  svc = await startService({ DOCKER_HOST: engineHost(), SVC_BIND_ROOTS: join(root, "allowed") })
})
afterAll(async () => {
  for (const name of [...PROJECTS, COPY]) await send("DELETE", `/stacks/${name}`).catch(() => {})
  for (const name of PROJECTS)
    for (const dir of ["allowed", "outside"])
      if (existsSync(join(root, dir, name))) composeByHand(join(root, dir, name), name, "down")
  const out = await svc
    .stop()
    .then(
      async () =>
        `${await new Response(svc.proc.stdout as ReadableStream).text()}${await new Response(svc.proc.stderr as ReadableStream).text()}`,
    )
  expect(out).not.toContain(SECRET)
  await cleanup(engine)
  rmSync(root, { recursive: true, force: true })
}, SLOW)

describe("compose projects made elsewhere", () => {
  const shopDir = () => join(root, "allowed", "hm-shop")

  test(
    "files under SVC_BIND_ROOTS: the dry run plans, the adoption keeps the containers",
    async () => {
      const dir = shopDir()
      mkdirSync(join(dir, "data"), { recursive: true })
      writeFileSync(join(dir, "data", "note.txt"), "kept")
      upProject(dir, "hm-shop", composeFile(`    volumes: ["./data:/data"]\n`))
      const before = await ids("hm-shop")

      const dry = await adopt("hm-shop", { dry_run: true })
      const dryText = await dry.text()
      expect(dry.status).toBe(200)
      expect(dryText).not.toContain(SECRET)
      const plan = JSON.parse(dryText)
      expect(plan).toMatchObject({ dry_run: true, stack: null, blockers: [], needed: [] })
      expect(plan.services).toEqual([{ name: "web", action: "keep", containers: before }])
      expect(plan.binds).toEqual([{ service: "web", source: "./data", path: join(dir, "data"), action: "rewritten" }])
      expect(plan.compose).toContain(`${join(dir, "data")}:/data`)
      expect(plan.env).toEqual([
        { key: "GREETING", value: "hello", secret: false, interpolated: true },
        { key: "DB_PASSWORD", value: null, secret: true, interpolated: true },
      ])
      expect(stackDirs()).toEqual([])

      const res = await adopt("hm-shop")
      const text = await res.text()
      expect(res.status).toBe(201)
      expect(text).not.toContain(SECRET)
      expect(JSON.parse(text).stack).toMatchObject({
        name: "hm-shop",
        managed: true,
        status: "running",
        current_version: 1,
      })
      expect(await ids("hm-shop")).toEqual(before)
      const versions = await (await api("/stacks/hm-shop/versions")).json()
      expect(versions.map((v: any) => [v.version, v.action])).toEqual([[1, "adopt"]])
    },
    SLOW,
  )

  test(
    "the adopted stack is updated, copied and rolled back like any other",
    async () => {
      const dir = shopDir()
      expect(
        (
          await send("PUT", "/stacks/hm-shop/env", [
            { key: "GREETING", value: "hi" },
            { key: "DB_PASSWORD", value: null },
          ])
        ).status,
      ).toBe(200)
      expect((await send("POST", "/stacks/hm-shop/apply")).status).toBe(200)
      expect(await envOf("hm-shop")).toContain("GREETING=hi")
      expect(await envOf("hm-shop")).toContain(`DB_PASSWORD=${SECRET}`)

      const copied = await send("POST", "/stacks/hm-shop/copy", { as: COPY, allow_binds: true, start: true })
      expect(copied.status).toBe(201)
      expect((await (await api(`/stacks/${COPY}`)).json()).status).toBe("running")

      expect((await send("POST", "/stacks/hm-shop/rollback/1")).status).toBe(200)
      expect(await envOf("hm-shop")).toContain("GREETING=hello")
      const web = (await engine.listContainers({ all: true, filters: { label: [`${STACK_LABEL}=hm-shop`] } }))[0]!
      const mounts = (await engine.inspectContainer(web.Id)).Mounts ?? []
      expect(mounts.map((m: any) => [m.Type, m.Source, m.Destination])).toEqual([["bind", join(dir, "data"), "/data"]])
    },
    SLOW,
  )

  test(
    "files outside every root: the answer names them; sent in the body, the project is adopted with its ids",
    async () => {
      const dir = join(root, "outside", "hm-outside")
      upProject(dir, "hm-outside", composeFile())
      const before = await ids("hm-outside")

      const res = await adopt("hm-outside")
      expect(res.status).toBe(409)
      const body = await res.json()
      expect(body.error.code).toBe("adopt_blocked")
      expect(body.plan.needed).toEqual([
        { path: join(dir, "compose.yaml"), as: "content" },
        { path: join(dir, ".env"), as: "env" },
      ])
      expect(stackDirs()).toEqual(["hm-shop", COPY].sort())

      const env = [
        { key: "GREETING", value: "hello" },
        { key: "DB_PASSWORD", value: SECRET },
      ]
      const ok = await adopt("hm-outside", { content: readFileSync(join(dir, "compose.yaml"), "utf8"), env })
      expect(ok.status).toBe(201)
      expect((await ok.json()).services).toEqual([{ name: "web", action: "keep", containers: before }])
      expect(await ids("hm-outside")).toEqual(before)
    },
    SLOW,
  )

  test(
    "a file edited after its containers started: 'would recreate web', nothing done",
    async () => {
      const dir = join(root, "allowed", "hm-edited")
      upProject(dir, "hm-edited", composeFile())
      const before = await ids("hm-edited")
      writeFileSync(join(dir, "compose.yaml"), composeFile().replace("sleep 0.2", "sleep 0.3"))
      const dirs = stackDirs()

      const res = await adopt("hm-edited")
      expect(res.status).toBe(409)
      const body = await res.json()
      expect(body.error.message).toContain("would recreate web")
      expect(body.plan.services).toEqual([{ name: "web", action: "recreate", containers: before }])
      expect(stackDirs()).toEqual(dirs)
      expect(await ids("hm-edited")).toEqual(before)
    },
    SLOW,
  )

  test(
    "the same with recreate: true: compose recreates web from the edited file, and the stack is managed",
    async () => {
      const dir = join(root, "allowed", "hm-recreate")
      upProject(dir, "hm-recreate", composeFile())
      const before = await ids("hm-recreate")
      writeFileSync(join(dir, "compose.yaml"), composeFile().replace("sleep 0.2", "sleep 0.3"))

      const res = await adopt("hm-recreate", { recreate: true })
      expect(res.status).toBe(201)
      const body = await res.json()
      expect(body.services).toEqual([{ name: "web", action: "recreate", containers: before }])
      expect(body.stack).toMatchObject({ name: "hm-recreate", managed: true, current_version: 1 })
      const after = await ids("hm-recreate")
      expect(after).toHaveLength(1)
      expect(after).not.toEqual(before)
      expect((await engine.inspectContainer(after[0]!)).Config.Cmd?.join(" ")).toContain("sleep 0.3")
    },
    SLOW,
  )

  test(
    "two compose files (-f compose.yaml -f prod.yaml): v2 merges them and keeps the containers; v1 asks for the merged file",
    async () => {
      const dir = join(root, "allowed", "hm-two")
      mkdirSync(dir, { recursive: true })
      writeFileSync(join(dir, "compose.yaml"), composeFile())
      writeFileSync(join(dir, "prod.yaml"), "services:\n  web:\n    environment:\n      MODE: prod\n")
      writeFileSync(join(dir, ".env"), `GREETING=hello\nDB_PASSWORD=${SECRET}\n`)
      composeByHand(dir, "hm-two", "-f", "compose.yaml", "-f", "prod.yaml", "up", "-d")
      const before = await ids("hm-two")
      expect((await envOf("hm-two")).filter((e) => e.startsWith("MODE="))).toEqual(["MODE=prod"])

      const res = await adopt("hm-two")
      const body = await res.json()
      if (process.env.TEST_COMPOSE === "v1") {
        expect([res.status, body.plan.needed]).toEqual([
          409,
          [{ path: `${dir}/compose.yaml,${dir}/prod.yaml`, as: "content (the files merged into one)" }],
        ])
        expect(stackDirs()).not.toContain("hm-two")
        return
      }
      expect(res.status).toBe(201)
      expect(body.services).toEqual([{ name: "web", action: "keep", containers: before }])
      expect(await ids("hm-two")).toEqual(before)
      const { content } = await (await api("/stacks/hm-two/compose")).json()
      expect(content).toContain("MODE=prod")
      expect(content).toContain("${DB_PASSWORD}")
      expect(content).not.toContain(SECRET)
    },
    SLOW,
  )

  test("bad input: a managed stack, an unknown project, traversal in file paths, an invalid name: 4xx, nothing written", async () => {
    const dirs = stackDirs()
    const cases: [string, unknown, number, string][] = [
      ["hm-shop", {}, 409, "stack_exists"],
      ["hm-nothing-here", {}, 404, "no_project"],
      ["hm-edited", { files: { "../escape.txt": "x" } }, 400, "invalid_path"],
      ["hm-edited", { files: { "/etc/passwd": "x" } }, 400, "invalid_path"],
      ["Not A Name", {}, 400, "invalid_name"],
    ]
    for (const [name, body, status, code] of cases) {
      const res = await adopt(encodeURIComponent(name), body)
      expect([name, res.status, (await res.json()).error.code]).toEqual([name, status, code])
    }
    expect(stackDirs()).toEqual(dirs)
  })
})
