// Swarm stacks against the test swarm of scripts/swarm.sh (a manager and two workers, a registry
// every node pulls from), through the real service process started on the manager, on both flavours.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test"
import { existsSync, readdirSync } from "node:fs"
import { join } from "node:path"
import { SWARM_STACK_LABEL } from "#lib/stacks/swarm.ts"
import { startService, type Service } from "../support/service.ts"
import { collect } from "../support/sse.ts"
import { swarmImage, swarmManager, swarmManagerHost, until } from "../support/swarm.ts"

setDefaultTimeout(180_000)

const manager = swarmManager()
let svc: Service
const NAME = "hm-swarm"
const SECRET_1 = "first-sw4rm-secret"
const SECRET_2 = "second-sw4rm-secret"
const FILE_SECRET = "file-sw4rm-secret"

/** Three services spread over the nodes, each saying its greeting; `app` reads the token as an environment value and as a swarm secret from one of the stack's files. */
const composeFile = () => {
  const service = (replicas: number, extra = "") => `    image: ${swarmImage()}
    command: ["sh", "-c", "trap 'exit 0' TERM; while true; do echo $$HOSTNAME says $$GREETING; sleep 0.5; done"]
    environment:
      GREETING: \${GREETING}
      TOKEN: \${TOKEN}
    stop_grace_period: 1s
    deploy:
      endpoint_mode: dnsrr
      replicas: ${replicas}
      update_config: { parallelism: 3, monitor: 1s }
      placement:
        max_replicas_per_node: ${replicas > 1 ? 1 : 2}
${extra}`
  return `services:
  app:
${service(3, "    secrets: [token]\n")}  web:
${service(2)}  worker:
${service(1)}secrets:
  token:
    file: ./token.txt
`
}

beforeAll(async () => {
  svc = await startService({ DOCKER_HOST: swarmManagerHost(), SVC_COMPOSE_TIMEOUT: "120", SVC_METRICS: "on" })
})
afterAll(async () => {
  await api(`/stacks/${NAME}`, { method: "DELETE" }).catch(() => {})
  const out = await svc
    .stop()
    .then(
      async () =>
        `${await new Response(svc.proc.stdout as ReadableStream).text()}${await new Response(svc.proc.stderr as ReadableStream).text()}`,
    )
  for (const secret of [SECRET_1, SECRET_2, FILE_SECRET]) expect(out).not.toContain(secret)
})

const api = (path: string, init?: RequestInit) => fetch(`${svc.url}/api${path}`, init)
const send = (method: string, path: string, body?: unknown) =>
  api(path, {
    method,
    ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  })
const services = () => manager.listServices({ label: [`${SWARM_STACK_LABEL}=${NAME}`] })
/** A service's environment as the swarm runs it (its spec). */
const envOf = async (service: string) =>
  (await manager.inspectService(`${NAME}_${service}`)).Spec.TaskTemplate.ContainerSpec?.Env ?? []
const nothingWritten = () =>
  expect(
    ["stacks", "records"].flatMap((d) => (existsSync(join(svc.dataDir, d)) ? readdirSync(join(svc.dataDir, d)) : [])),
  ).toEqual([])

test("a swarm stack deploys as the CLI's model, every task running before the answer, spread over the nodes", async () => {
  const res = await send("POST", "/stacks", {
    name: NAME,
    content: composeFile(),
    orchestrator: "swarm",
    env: [
      { key: "GREETING", value: "hello", secret: false },
      { key: "TOKEN", value: SECRET_1, secret: true },
    ],
    files: { "token.txt": FILE_SECRET },
  })
  const body = await res.json()
  expect(res.status, JSON.stringify(body)).toBe(201)
  expect(body).toMatchObject({
    name: NAME,
    managed: true,
    orchestrator: "swarm",
    status: "running",
    current_version: 1,
  })
  expect(body.services.map((s: any) => [s.name, s.replicas])).toEqual([
    ["app", { desired: 3, running: 3 }],
    ["web", { desired: 2, running: 2 }],
    ["worker", { desired: 1, running: 1 }],
  ])
  expect(new Set(body.services.flatMap((s: any) => s.tasks.map((t: any) => t.node)))).toEqual(
    new Set(["manager", "worker1", "worker2"]),
  )
  expect(JSON.stringify(body)).not.toContain(SECRET_1)
  expect(await envOf("app")).toContain("GREETING=hello")
  // the list says what runs it
  const list = await (await api("/stacks")).json()
  expect(list.find((s: any) => s.name === NAME)).toMatchObject({
    orchestrator: "swarm",
    capabilities: { actions: ["restart"], runs_on: "nodes" },
    status: "running",
  })
  // and so do the metrics: the stack gauge counts it running
  expect(await (await fetch(`${svc.url}/metrics`)).text()).toMatch(/^harbormaster_stacks\{status="running"\} 1$/m)
  // the secret from the stack's file is the swarm's
  expect(await secretNames()).toEqual([expect.stringMatching(new RegExp(`^${NAME}_token_[0-9a-f]{12}$`))])
})

const secretNames = async () =>
  (
    (await manager.inspectService(`${NAME}_app`)).Spec.TaskTemplate.ContainerSpec?.Secrets as { SecretName: string }[]
  ).map((s) => s.SecretName)

test("an environment and a secret file applied and a version rolled back change what the tasks run", async () => {
  expect(
    (
      await send("PUT", `/stacks/${NAME}/env`, [
        { key: "GREETING", value: "bonjour", secret: false },
        { key: "TOKEN", value: SECRET_2, secret: true },
      ])
    ).status,
  ).toBe(200)
  // the swarm changes no secret in place: a new content is a new secret
  const before = await secretNames()
  expect((await send("PUT", `/stacks/${NAME}/files/token.txt`, { content: `${FILE_SECRET}-2` })).status).toBe(200)
  const applied = await send("POST", `/stacks/${NAME}/apply`)
  expect(applied.status, await applied.clone().text()).toBe(200)
  expect((await applied.json()).status).toBe("running")
  expect(await envOf("web")).toContain("GREETING=bonjour")
  expect(await envOf("web")).toContain(`TOKEN=${SECRET_2}`)
  const after = await secretNames()
  expect(after).toHaveLength(1)
  expect(after).not.toEqual(before)
  const rolled = await send("POST", `/stacks/${NAME}/rollback/1`)
  expect(rolled.status, await rolled.clone().text()).toBe(200)
  expect(await envOf("web")).toContain("GREETING=hello")
  const tasks = await manager.listTasks({ service: [`${NAME}_web`], "desired-state": ["running"] })
  expect(tasks.length).toBe(2)
  expect(tasks.every((t) => t.Status.State === "running")).toBe(true)
})

test("the logs merge every service's tasks on every node, the task as the container", async () => {
  const lines = await collect(await api(`/stacks/${NAME}/logs?follow=false&tail=20`))
  const services = new Set(lines.map((l) => l.service))
  expect([...services].sort()).toEqual(["app", "web", "worker"])
  // every task that ran (those of the versions before too), each of its lines with the time
  const app = lines.filter((l) => l.service === "app")
  expect(new Set(app.map((l) => l.container)).size).toBeGreaterThanOrEqual(3)
  expect(app.every((l) => / says (hello|bonjour)$/.test(l.line) && l.stream === "stdout" && l.ts)).toBe(true)
})

test("restart replaces every task; start, pause and unpause are 409 not_supported; a redeploy naming compose is 409", async () => {
  const before = new Set(
    (await manager.listTasks({ service: [`${NAME}_worker`], "desired-state": ["running"] })).map((t) => t.ID),
  )
  expect((await send("POST", `/stacks/${NAME}/restart`)).status).toBe(200)
  await until(async () => {
    const now = await manager.listTasks({ service: [`${NAME}_worker`], "desired-state": ["running"] })
    return now.length === 1 && !before.has(now[0]!.ID) && now[0]!.Status.State === "running"
  })
  for (const action of ["start", "pause", "unpause"]) {
    const res = await send("POST", `/stacks/${NAME}/${action}`)
    expect(res.status).toBe(409)
    expect((await res.json()).error.code).toBe("not_supported")
  }
  const res = await send("POST", "/stacks", { name: NAME, content: composeFile(), orchestrator: "compose" })
  expect(res.status).toBe(409)
  expect((await res.json()).error.code).toBe("orchestrator_mismatch")
})

test("hostile models, as the real CLI prints them, are 400 with nothing written", async () => {
  const app = (extra: string) => `services:\n  app:\n    image: ${swarmImage()}\n${extra}`
  const hostile = [
    `${app("    secrets: [s]\n")}secrets:\n  s:\n    file: /etc/shadow\n`,
    `${app("    configs: [c]\n")}configs:\n  c:\n    file: ../../records/${NAME}/env.json\n`,
    app('    volumes: ["/:/host"]\n'),
    app("    volumes:\n      - type: bind\n        source: ${WHERE:-/etc}\n        target: /x\n"),
    app("    env_file: ../../records/hm-swarm/.env\n"),
    app("    build: .\n"),
  ]
  for (const content of hostile) {
    const res = await send("POST", "/stacks", { name: "hm-hostile", content, orchestrator: "swarm" })
    expect(res.status, content).toBe(400)
    expect(["host_path_refused", "build_not_supported"]).toContain((await res.json()).error.code)
  }
  expect(readdirSync(join(svc.dataDir, "records"))).toEqual([NAME])
})

/** An image in the swarm's registry whose command is `script`, as `<registry>/svc-test/swarm-upd:<tag>`. */
async function pushImage(tag: string, script: string): Promise<string> {
  const repo = `${swarmImage().split("/")[0]}/svc-test/swarm-upd`
  await manager.pullImage(swarmImage())
  const { Id } = await manager.createContainer({ Image: swarmImage(), Cmd: ["sh", "-c", `echo ${tag} > /version`] })
  await manager.containerAction(Id, "start")
  await manager.waitContainer(Id)
  await manager.commitContainer(Id, repo, tag, [`CMD ${JSON.stringify(["sh", "-c", script])}`])
  await manager.removeContainer(Id, { force: true })
  await manager.pushImage(`${repo}:${tag}`)
  return `${repo}:${tag}`
}

test("a watched deploy of an image that exits, and an update to one, are rolled back, with their verdicts and history", async () => {
  const good = await pushImage("good", "trap 'exit 0' TERM; while true; do sleep 1; done")
  const bad = await pushImage("bad", "echo failing; exit 1")
  const compose = (image: string) => `services:
  app:
    image: ${image}
    stop_grace_period: 1s
    environment:
      TOKEN: \${TOKEN}
    deploy:
      endpoint_mode: dnsrr
      replicas: 2
`
  const env = [{ key: "TOKEN", value: SECRET_1, secret: true }]
  const first = await send("POST", "/stacks", {
    name: "hm-swarm-upd",
    content: compose(good),
    orchestrator: "swarm",
    env,
    watch: 3,
  })
  const created = await first.json()
  expect(first.status, JSON.stringify(created)).toBe(201)
  expect(created.update).toMatchObject({ verdict: "updated", action: "deploy" })
  const res = await send("POST", "/stacks", { name: "hm-swarm-upd", content: compose(bad), watch: 5 })
  const body = await res.json()
  expect(res.status, JSON.stringify(body)).toBe(200)
  expect(body.update).toMatchObject({ verdict: "rolled_back", action: "deploy", version: 1 })
  expect(body.update.reason).toContain("service app")
  expect(body).toMatchObject({ current_version: 1, status: "running" })
  const spec = await manager.inspectService("hm-swarm-upd_app")
  expect(spec.Spec.TaskTemplate.ContainerSpec?.Image).toStartWith(good)
  const { history } = await (await api("/stacks/hm-swarm-upd/updates")).json()
  expect(history.map((h: any) => h.verdict)).toEqual(["rolled_back", "updated"])

  // A guarded update after the tag moved to an image that exits: the swarm rolls the service back.
  const running = spec.Spec.TaskTemplate.ContainerSpec?.Image
  await pushImage("good", "echo failing; exit 1")
  const updated = await send("POST", "/stacks/hm-swarm-upd/update", { watch: 5 })
  const outcome = await updated.json()
  expect(updated.status, JSON.stringify(outcome)).toBe(200)
  expect(outcome.update).toMatchObject({ verdict: "rolled_back", action: "update", version: 1 })
  expect(outcome.update.images).toEqual([expect.objectContaining({ service: "app", from: running })])
  expect((await manager.inspectService("hm-swarm-upd_app")).Spec.TaskTemplate.ContainerSpec?.Image).toBe(running)
  expect((await (await api("/stacks/hm-swarm-upd/updates")).json()).history.map((h: any) => h.verdict)).toEqual([
    "rolled_back",
    "rolled_back",
    "updated",
  ])
  expect((await api("/stacks/hm-swarm-upd", { method: "DELETE" })).status).toBe(200)
})

test("no answer, event or log line shows a secret value", async () => {
  const events = await (await api("/events/history")).text()
  for (const secret of [SECRET_1, SECRET_2, FILE_SECRET]) expect(events).not.toContain(secret)
  expect((await (await api(`/stacks/${NAME}/env`)).json()).find((e: any) => e.key === "TOKEN")).toMatchObject({
    value: null,
    secret: true,
  })
})

test("delete removes the stack's services and networks, then its folders", async () => {
  expect((await api(`/stacks/${NAME}`, { method: "DELETE" })).status).toBe(200)
  expect(await services()).toEqual([])
  expect((await manager.listNetworks()).filter((n) => n.Labels?.[SWARM_STACK_LABEL] === NAME)).toEqual([])
  nothingWritten()
})
