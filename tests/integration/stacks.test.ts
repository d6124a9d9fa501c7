// Stacks against the real private engine and the real compose CLI, through the real service process.
import { afterAll, beforeAll, expect, test } from "bun:test"
import { readdirSync } from "node:fs"
import { join } from "node:path"
import { STACK_LABEL, SERVICE_LABEL } from "#lib/engine/containers.ts"
import type { Engine } from "#lib/engine/client.ts"
import { cleanup, engineHost, realEngine, TEST_LABEL, testImage } from "../support/engine.ts"
import { freePort, startService, type Service } from "../support/service.ts"
import { collect } from "../support/sse.ts"

let engine: Engine
let svc: Service
let port: number
const NAME = "hm-stack"
const SECRET_1 = "first-s3cret-value"
const SECRET_2 = "second-s3cret-value"

/** Two chatty services that stop promptly on SIGTERM (PID 1 has no default handler), a named volume, a published port. */
const composeFile = (p: number) => `services:
  app:
    image: ${testImage()}
    command: ["sh", "-c", "trap 'exit 0' TERM; while true; do echo app says $$GREETING; sleep 0.2; done"]
    environment:
      GREETING: \${GREETING}
      TOKEN: \${TOKEN}
    ports: ["${p}:80"]
    volumes: ["data:/data"]
    labels: { ${TEST_LABEL}: "1" }
  worker:
    image: ${testImage()}
    command: ["sh", "-c", "trap 'exit 0' TERM; while true; do echo worker tick; sleep 0.2; done"]
    labels: { ${TEST_LABEL}: "1" }
volumes:
  data:
    labels: { ${TEST_LABEL}: "1" }
`

beforeAll(async () => {
  engine = realEngine()
  await cleanup(engine)
  port = await freePort()
  svc = await startService({ DOCKER_HOST: engineHost() })
})
afterAll(async () => {
  for (const name of [NAME, "hm-race"]) await api(`/stacks/${name}?volumes=true`, { method: "DELETE" }).catch(() => {})
  const out = await svc
    .stop()
    .then(
      async () =>
        `${await new Response(svc.proc.stdout as ReadableStream).text()}${await new Response(svc.proc.stderr as ReadableStream).text()}`,
    )
  expect(out).not.toContain(SECRET_1)
  expect(out).not.toContain(SECRET_2)
  await cleanup(engine)
})

const api = (path: string, init?: RequestInit) => fetch(`${svc.url}/api${path}`, init)
const send = (method: string, path: string, body?: unknown) =>
  api(path, {
    method,
    ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  })
const containers = (name = NAME) => engine.listContainers({ all: true, filters: { label: [`${STACK_LABEL}=${name}`] } })
async function envOf(service: string): Promise<string[]> {
  const c = (await containers()).find((c) => c.Labels[SERVICE_LABEL] === service)!
  return (await engine.inspectContainer(c.Id)).Config.Env ?? []
}
const stackDirs = () => readdirSync(join(svc.dataDir, "stacks")).sort()

test("deploy a two-service stack with a named volume and a published port", async () => {
  const res = await send("POST", "/stacks", {
    name: NAME,
    content: composeFile(port),
    env: [
      { key: "GREETING", value: "hello" },
      { key: "TOKEN", value: SECRET_1, secret: true },
    ],
  })
  const text = await res.text()
  expect(res.status).toBe(201)
  expect(text).not.toContain(SECRET_1)
  const body = JSON.parse(text)
  expect(body).toMatchObject({ name: NAME, managed: true, status: "running", current_version: 1, env_pending: false })
  expect(body.services.map((s: any) => [s.name, s.containers.length])).toEqual([
    ["app", 1],
    ["worker", 1],
  ])
  const list = await containers()
  expect(list.map((c) => c.State)).toEqual(["running", "running"])
  expect(list.find((c) => c.Labels[SERVICE_LABEL] === "app")!.Ports.some((p) => p.PublicPort === port)).toBe(true)
  expect((await engine.listVolumes({ label: [`${STACK_LABEL}=${NAME}`] })).map((v) => v.Name)).toEqual([`${NAME}_data`])
  expect(await envOf("app")).toContain(`TOKEN=${SECRET_1}`)
  const listed = await (await api("/stacks")).json()
  expect(listed.find((s: any) => s.name === NAME)).toMatchObject({ managed: true, status: "running" })
})

test("change a secret, apply, roll back to version 1: the running container's environment follows", async () => {
  let res = await send("PUT", `/stacks/${NAME}/env`, [
    { key: "GREETING", value: "hi" },
    { key: "TOKEN", value: SECRET_2 },
  ])
  expect(await res.json()).toEqual({
    env_pending: true,
    env: [
      { key: "GREETING", value: "hi", secret: false },
      { key: "TOKEN", value: null, secret: true },
    ],
  })
  expect(await envOf("app")).toContain(`TOKEN=${SECRET_1}`)
  res = await send("POST", `/stacks/${NAME}/apply`)
  expect(await res.json()).toMatchObject({ current_version: 2, env_pending: false, status: "running" })
  expect(await envOf("app")).toContain(`TOKEN=${SECRET_2}`)
  expect(await envOf("app")).toContain("GREETING=hi")

  res = await send("POST", `/stacks/${NAME}/rollback/1`)
  expect(await res.json()).toMatchObject({ current_version: 1, env_pending: false, status: "running" })
  expect(await envOf("app")).toContain(`TOKEN=${SECRET_1}`)
  expect(await envOf("app")).toContain("GREETING=hello")

  const versions = await (await api(`/stacks/${NAME}/versions`)).text()
  expect(versions).not.toContain(SECRET_1)
  expect(versions).not.toContain(SECRET_2)
  expect(JSON.parse(versions).map((v: any) => [v.version, v.current])).toEqual([
    [1, true],
    [2, false],
  ])
  expect((await send("DELETE", `/stacks/${NAME}/versions/1`)).status).toBe(409)
  expect((await send("POST", `/stacks/${NAME}/rollback/42`)).status).toBe(404)

  const events = await (await api("/events/history")).text()
  expect(events).toContain('"up.output"')
  expect(events).not.toContain(SECRET_1)
  expect(events).not.toContain(SECRET_2)
})

test("pause and unpause every container", async () => {
  expect((await (await send("POST", `/stacks/${NAME}/pause`)).json()).status).toBe("paused")
  expect((await containers()).every((c) => c.State === "paused")).toBe(true)
  expect((await (await send("POST", `/stacks/${NAME}/unpause`)).json()).status).toBe("running")
  expect((await containers()).every((c) => c.State === "running")).toBe(true)
})

test("follow the merged logs of both services", async () => {
  const stop = new AbortController()
  const res = await api(`/stacks/${NAME}/logs?tail=2`, { signal: stop.signal })
  const seen = new Set<string>()
  const lines = await collect(res, (all) => {
    for (const l of all) seen.add(l.service)
    return seen.size === 2 && all.length >= 8
  })
  stop.abort()
  expect(lines.find((l) => l.service === "app")).toMatchObject({ stream: "stdout", line: "app says hello" })
  expect(lines.find((l) => l.service === "worker")).toMatchObject({ stream: "stdout", line: "worker tick" })
  expect(lines.every((l) => l.container && l.ts)).toBe(true)
})

test("bad input is refused and writes nothing", async () => {
  const before = stackDirs()
  for (const name of ["..", "../etc", "a/b", "UP", "-x", "x".repeat(64)])
    expect((await send("POST", "/stacks", { name, content: composeFile(port) })).status).toBe(400)
  expect((await api("/stacks/..%2Fetc")).status).toBe(400)
  let res = await send("POST", "/stacks", { name: "hm-broken", content: "services:\n  app: [\n" })
  expect(res.status).toBe(400)
  expect((await res.json()).error.message).toContain("does not parse")
  res = await send("POST", "/stacks", {
    name: "hm-broken",
    content: `services:\n  app:\n    image: ${testImage()}\n    servces: 1\n`,
  })
  expect(res.status).toBe(400)
  expect((await res.json()).error.message).toContain("servces")
  res = await send("POST", "/stacks", {
    name: NAME,
    content: `services:\n  app:\n    image: ${testImage()}\n    ports: ["not-a-port"]\n`,
  })
  expect(res.status).toBe(400)
  expect(stackDirs()).toEqual(before)
  expect((await (await api(`/stacks/${NAME}/compose`)).json()).content).toBe(composeFile(port))
  expect((await api("/stacks/hm-nothing")).status).toBe(404)
})

test("an up that fails restores the previous files and version", async () => {
  const broken = composeFile(port).replace(
    `image: ${testImage()}\n    command: ["sh", "-c", "trap 'exit 0' TERM; while true; do echo worker`,
    `image: svc-test/absent:latest\n    command: ["sh", "-c", "trap 'exit 0' TERM; while true; do echo worker`,
  )
  expect(broken).toContain("svc-test/absent")
  const res = await send("POST", "/stacks", { name: NAME, content: broken })
  expect(res.status).toBe(502)
  expect((await res.json()).error.message).not.toContain(SECRET_1)
  const stack = await (await api(`/stacks/${NAME}`)).json()
  expect(stack).toMatchObject({ current_version: 1, status: "running" })
  expect((await (await api(`/stacks/${NAME}/compose`)).json()).content).toBe(composeFile(port))
  expect((await (await api(`/stacks/${NAME}/versions`)).json()).length).toBe(2)
})

test("two deploys of one stack at once run one after the other", async () => {
  const content = `services:\n  one:\n    image: ${testImage()}\n    command: ["sh", "-c", "trap 'exit 0' TERM; while true; do sleep 1; done"]\n    labels: { ${TEST_LABEL}: "1" }\n`
  const results = await Promise.all(
    [1, 2].map((n) => send("POST", "/stacks", { name: "hm-race", content, env: [{ key: "N", value: String(n) }] })),
  )
  expect(results.map((r) => r.status).sort()).toEqual([200, 201])
  const versions = await (await api("/stacks/hm-race/versions")).json()
  expect(versions.map((v: any) => [v.version, v.current])).toEqual([
    [1, false],
    [2, true],
  ])
  expect((await containers("hm-race")).length).toBe(1)
  expect((await send("DELETE", "/stacks/hm-race")).status).toBe(200)
  expect((await containers("hm-race")).length).toBe(0)
})

test("delete with volumes=true removes containers, network, volume and files", async () => {
  const res = await send("DELETE", `/stacks/${NAME}?volumes=true`)
  expect(res.status).toBe(200)
  expect(await containers()).toEqual([])
  expect(await engine.listVolumes({ label: [`${STACK_LABEL}=${NAME}`] })).toEqual([])
  expect((await engine.listNetworks()).some((n) => n.Name.startsWith(`${NAME}_`))).toBe(false)
  expect(stackDirs()).not.toContain(NAME)
  expect((await api(`/stacks/${NAME}`)).status).toBe(404)
})

test("a first deploy whose up fails removes the volumes compose made for it, and leaves the ones that were there before", async () => {
  const name = "hm-vols"
  // A volume by the name compose would give it, there before the deploy.
  await engine.createVolume(`${name}_kept`, { [STACK_LABEL]: name, [TEST_LABEL]: "1" })
  const content = `services:
  app:
    image: ${testImage()}
    command: ["/no/such/program"]
    volumes: ["made:/m", "kept:/k"]
    labels: { ${TEST_LABEL}: "1" }
volumes:
  made:
    labels: { ${TEST_LABEL}: "1" }
  kept:
    labels: { ${TEST_LABEL}: "1" }
`
  const res = await send("POST", "/stacks", { name, content })
  expect(res.status).toBe(502)
  expect((await send("GET", `/stacks/${name}`)).status).toBe(404)
  const left = (await engine.listVolumes({ label: [`${STACK_LABEL}=${name}`] })).map((v) => v.Name)
  expect(left).toEqual([`${name}_kept`])
  expect(await containers(name)).toEqual([])
  await engine.removeVolume(`${name}_kept`)
}, 120_000)

test("a project shaped like compose's own examples deploys: version '2', a build of the stack's folder bound whole at /code", async () => {
  // The shape of docker's flask-redis example (its indentation too), with the test image for the registry's.
  const name = "hm-example"
  const content = `version: '2'
services:
   redis:
     image: ${testImage()}
     command: ["sleep", "1000"]
     labels: { ${TEST_LABEL}: "1" }
   web:
        build: .
        command: ["sh", "-c", "ls /code && sleep 1000"]
        ports:
            - "5000:5000"
        volumes:
            - .:/code
        depends_on:
            - redis
        labels: { ${TEST_LABEL}: "1" }
`
  const files = { Dockerfile: `FROM ${testImage()}\nCOPY app.py /app.py\n`, "app.py": "print('hello')\n" }
  const res = await send("POST", "/stacks", { name, content, files })
  const body = await res.json()
  expect([res.status, body.error]).toEqual([201, undefined])
  const web = (await containers(name)).find((c) => c.Labels[SERVICE_LABEL] === "web")!
  const mounts = (await engine.inspectContainer(web.Id)).Mounts ?? []
  expect(mounts.map((m: { Source: string; Destination: string }) => [m.Source, m.Destination])).toEqual([
    [join(svc.dataDir, "stacks", name), "/code"],
  ])
  expect((await send("DELETE", `/stacks/${name}`)).status).toBe(200)
}, 180_000)
