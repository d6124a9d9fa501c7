import { afterEach, expect, test } from "bun:test"
import { existsSync, readdirSync } from "node:fs"
import { join } from "node:path"
import { STACK_LABEL, SERVICE_LABEL } from "#lib/engine/containers.ts"
import { loadConfig } from "#lib/service/config.ts"
import { createContext } from "#lib/service/context.ts"
import { stackDirs } from "#lib/stacks/name.ts"
import { appFor } from "../../../support/app.ts"
import { watchFileReads } from "../../../support/file-reads.ts"
import { bearer, withToken } from "../../../support/token.ts"
import { stackApp, twoServices } from "../../../support/compose.ts"

let t: Awaited<ReturnType<typeof stackApp>>
afterEach(() => t.close())

const deploy = (body: unknown) => t.call("POST", "/api/stacks", body)

test("POST deploys: 201 with the running stack, version 1, secrets nowhere in the answer", async () => {
  t = await stackApp()
  const res = await deploy({
    name: "demo",
    content: twoServices,
    env: [{ key: "TOKEN", value: "s3cret-value", secret: true }],
  })
  expect(res.status).toBe(201)
  const text = await res.text()
  expect(text).not.toContain("s3cret-value")
  const body = JSON.parse(text)
  expect(body).toMatchObject({ name: "demo", managed: true, status: "running", current_version: 1, env_pending: false })
  expect(body.services.map((s: any) => [s.name, s.containers.length])).toEqual([
    ["db", 1],
    ["web", 1],
  ])
  expect([t.compose.configCalls.length, ...t.compose.calls.map((c) => c.args[0])]).toEqual([1, "up"])
  expect((await deploy({ name: "demo", content: twoServices })).status).toBe(200)
})

test("POST refuses bad names, broken YAML and a file compose rejects, writing nothing", async () => {
  t = await stackApp()
  for (const name of ["..", "../x", "a/b", "UPPER", "-x", "", "x".repeat(64)]) {
    const res = await deploy({ name, content: twoServices })
    expect(res.status).toBe(400)
    expect((await res.json()).error.code).toBe("invalid_name")
  }
  let res = await deploy({ name: "demo", content: "services:\n  web: [\n" })
  expect(res.status).toBe(400)
  expect((await res.json()).error).toMatchObject({ code: "invalid_compose" })
  t.compose.failures.set(
    "config",
    "ERROR: The Compose file is invalid because: services.web.image contains an invalid type",
  )
  res = await deploy({ name: "demo", content: twoServices })
  expect(res.status).toBe(400)
  expect((await res.json()).error.message).toContain("contains an invalid type")
  expect((await deploy({ name: "demo" })).status).toBe(400)
  expect(existsSync(join(t.dataDir, "stacks")) ? readdirSync(join(t.dataDir, "stacks")) : []).toEqual([])
  expect([t.compose.configCalls.length, t.compose.calls.length]).toEqual([1, 0])
})

test("GET lists managed stacks and compose projects made elsewhere", async () => {
  t = await stackApp()
  await deploy({ name: "demo", content: twoServices })
  t.engine.addContainer({
    name: "other-app-1",
    state: "exited",
    labels: { [STACK_LABEL]: "other", [SERVICE_LABEL]: "app" },
  })
  t.engine.addContainer({ name: "loose" })
  const list = await (await t.call("GET", "/api/stacks")).json()
  expect(list.map((s: any) => [s.name, s.managed, s.status])).toEqual([
    ["demo", true, "running"],
    ["other", false, "stopped"],
  ])
})

test("POST takes an orchestrator: compose by default, an unknown one 400, the other one on a redeploy 409, build: on a swarm 400", async () => {
  t = await stackApp()
  expect((await deploy({ name: "demo", content: twoServices, orchestrator: "kubernetes" })).status).toBe(400)
  const res = await deploy({ name: "demo", content: twoServices })
  expect((await res.json()).orchestrator).toBe("compose")
  const mismatch = await deploy({ name: "demo", content: twoServices, orchestrator: "swarm" })
  expect(mismatch.status).toBe(409)
  expect((await mismatch.json()).error.code).toBe("orchestrator_mismatch")
  expect((await deploy({ name: "demo", content: twoServices, orchestrator: "compose" })).status).toBe(200)
  const built = await deploy({ name: "built", content: "services:\n  app:\n    build: .\n", orchestrator: "swarm" })
  expect(built.status).toBe(400)
  expect((await built.json()).error.code).toBe("build_not_supported")
  expect(existsSync(join(t.dataDir, "records/built"))).toBe(false)
  expect((await (await t.call("GET", "/api/stacks")).json()).map((s: any) => [s.name, s.orchestrator])).toEqual([
    ["demo", "compose"],
  ])
})

test("GET reads no stack's files and runs no compose: states, services, git markers and secrets come from memory, and stay what a restarted service reads", async () => {
  t = await stackApp()
  withToken(t.dataDir)
  const names = Array.from({ length: 12 }, (_, i) => `s${String(i).padStart(2, "0")}`)
  for (const name of names)
    expect(
      (await deploy({ name, content: twoServices, env: [{ key: "TOKEN", value: `pw-${name}`, secret: true }] })).status,
    ).toBe(201)
  const list = async (app: { call: typeof t.call } = t) => {
    const res = await app.call("GET", "/api/stacks")
    expect(res.status).toBe(200)
    return (await res.json()) as { name: string; env_pending: boolean; current_version: number; git: unknown }[]
  }
  /** The list a service started afresh on the same data directory and engine answers. */
  const restarted = async () => {
    const ctx = await createContext(loadConfig({ SVC_DATA: t.dataDir }), { engine: t.engine, compose: t.compose })
    const app = appFor(ctx)
    return list({
      call: async (method, path) =>
        (await app.fetch(
          new Request(`http://127.0.0.1:8080${path}`, { method, headers: { host: "127.0.0.1:8080" } }),
        ))!,
    })
  }
  expect((await list()).map((s) => s.name)).toEqual(names)
  const reads = watchFileReads(Object.values(stackDirs(t.dataDir)))
  try {
    const composeRuns = () => t.compose.calls.length + t.compose.configCalls.length
    const ran = composeRuns()
    for (let i = 0; i < 3; i++) expect((await list()).length).toBe(12)
    expect(reads.paths()).toEqual([])
    expect(composeRuns()).toBe(ran)

    // Changed, deleted and imported stacks are listed as they are now, still without a read.
    expect((await t.call("PUT", "/api/stacks/s03/env", [{ key: "TOKEN", value: "new", secret: true }])).status).toBe(
      200,
    )
    expect((await t.call("DELETE", "/api/stacks/s05")).status).toBe(200)
    const exported = await (await t.call("GET", "/api/stacks/s01/export", undefined, bearer)).json()
    expect((await t.call("POST", "/api/stacks/import", { ...exported, name: "s99" }, bearer)).status).toBeLessThan(300)
    // The first list after reads what the changes made it forget of those stacks alone (the changed
    // stack's secrets, the new stack's git source), once.
    reads.reset()
    const now = await list()
    const records = stackDirs(t.dataDir).records
    expect([...new Set(reads.paths().map((p) => p.slice(records.length + 1).split("/")[0]))].sort()).toEqual([
      "s03",
      "s99",
    ])
    reads.reset()
    expect(await list()).toEqual(now)
    expect(reads.paths()).toEqual([])
    expect(now.map((s) => s.name)).toEqual([...names.filter((n) => n !== "s05"), "s99"])
    expect(now.find((s) => s.name === "s03")!.env_pending).toBe(true)
    expect(now.find((s) => s.name === "s99")).toMatchObject({ current_version: 1, env_pending: false })
    expect(JSON.stringify(now)).not.toContain("pw-s")
    reads.stop()
    expect(now).toEqual(await restarted())
  } finally {
    reads.stop()
  }
})
