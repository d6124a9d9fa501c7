// Compose files compose reads and runs that the service used to refuse, against the real service, the
// real engine and each compose CLI: an `env_file` entry with `required: false` whose file is not there
// (compose skips it; v1, which has no such form, refuses it in its own words), and a build's `ssh`
// key, which compose 2.26's JSON printer cannot print (its YAML model is read instead, the key's path
// still guarded; v1 refuses the key in its own words).
import { afterAll, beforeAll, expect, test } from "bun:test"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import type { Engine } from "#lib/engine/client.ts"
import { STACK_LABEL } from "#lib/engine/containers.ts"
import { cleanup, engineHost, realEngine, TEST_LABEL, testImage } from "../support/engine.ts"
import { startService, type Service } from "../support/service.ts"

const v2 = process.env.TEST_COMPOSE === "v2"
const IDLE = `["sh", "-c", "trap 'exit 0' TERM; while true; do sleep 0.2; done"]`
let engine: Engine
let svc: Service

beforeAll(async () => {
  engine = realEngine()
  await cleanup(engine)
  svc = await startService({ DOCKER_HOST: engineHost() })
}, 60_000)
afterAll(async () => {
  for (const name of ["hm-optional", "hm-ssh"]) await call("DELETE", `/stacks/${name}`).catch(() => {})
  await svc.stop()
  await cleanup(engine)
}, 60_000)

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(`${svc.url}/api${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  })
  return { status: res.status, body: (await res.json()) as any }
}

/** The environment of the stack's one container. */
async function envOf(name: string): Promise<string[]> {
  const [c] = await engine.listContainers({ filters: { label: [`${STACK_LABEL}=${name}`] } })
  return ((await engine.inspectContainer(c!.Id)).Config as { Env: string[] }).Env
}

test("an optional env file that is not there is skipped as compose skips it; one that is there is read; one the stack's containers could write is refused", async () => {
  const content = `services:
  app:
    image: ${testImage()}
    command: ${IDLE}
    labels: { ${TEST_LABEL}: "1" }
    env_file:
      - path: ./absent.env
        required: false
      - path: ./present.env
        required: false
`
  const res = await call("POST", "/stacks", {
    name: "hm-optional",
    content,
    files: { "present.env": "FROM_FILE=yes\n" },
  })
  if (!v2) {
    expect([res.status, res.body.error.code]).toEqual([400, "invalid_compose"])
    expect(res.body.error.message).toContain("env_file contains")
    expect(res.body.error.message).toContain("it should be a string")
    return
  }
  expect(res.status).toBe(201)
  expect(await envOf("hm-optional")).toContain("FROM_FILE=yes")
  // The same name in the stack's folder, where its containers may write, is its data: compose would read it.
  writeFileSync(join(svc.dataDir, "stacks", "hm-optional", "absent.env"), "PLANTED=1\n")
  const planted = await call("POST", "/stacks/hm-optional/apply")
  expect([planted.status, planted.body.error.code]).toEqual([400, "host_path_refused"])
  expect(planted.body.error.message).toContain("absent.env")
  expect(await envOf("hm-optional")).not.toContain("PLANTED=1")
}, 120_000)

test("a build's ssh key: compose 2.26 prints its model as YAML only, the key's path is guarded and the stack runs", async () => {
  const content = (key: string) => `services:
  app:
    image: ${testImage()}
    build:
      context: .
      ssh: ["deploy=${key}"]
    command: ${IDLE}
    labels: { ${TEST_LABEL}: "1" }
`
  const files = { Dockerfile: `FROM ${testImage()}\n`, deploy_key: "not a key\n" }
  const outside = await call("POST", "/stacks", { name: "hm-ssh", content: content("/etc/shadow"), files })
  if (!v2) {
    expect([outside.status, outside.body.error.code]).toEqual([400, "invalid_compose"])
    expect(outside.body.error.message).toContain("unsupported option: 'ssh'")
    return
  }
  expect([outside.status, outside.body.error.code]).toEqual([400, "host_path_refused"])
  expect(outside.body.error.message).toContain("/etc/shadow")
  const res = await call("POST", "/stacks", { name: "hm-ssh", content: content("./deploy_key"), files })
  expect(res.status).toBe(201)
  expect(res.body.status).toBe("running")
  // The file compose runs carries the key in the form compose reads.
  const run = JSON.parse(svc.opened(join(svc.dataDir, "records", "hm-ssh", "run.json")))
  expect(run.services.app.build.ssh).toEqual([`deploy=${join(svc.dataDir, "stacks", "hm-ssh", "deploy_key")}`])
  expect((await call("POST", "/stacks/hm-ssh/apply")).status).toBe(200)
}, 120_000)
