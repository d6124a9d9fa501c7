// A swarm stack whose image is only in a private registry (the real distribution registry behind
// TLS from a test CA, htpasswd), deployed through the service on the test swarm's manager to its
// workers, which pull it with the credentials the deploy sends (`--with-registry-auth`). Wrong
// credentials are an error naming the registry before anything is deployed, and a running stack
// stays as it ran. The registry runs in the swarm's own hub namespace, where every node reaches it.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { dockerEngine } from "#lib/engine/client.ts"
import { xRegistryAuth } from "#lib/registries/registries.ts"
import { SWARM_STACK_LABEL } from "#lib/stacks/swarm.ts"
import { privateRegistries, type PrivateRegistries } from "../support/private-registry.ts"
import { startService, type Service } from "../support/service.ts"
import { swarmManager, swarmManagerHost, swarmWorkerHosts } from "../support/swarm.ts"

setDefaultTimeout(180_000)

const SWARM_HUB = "10.215.0.1"
let reg: PrivateRegistries
let svc: Service
const manager = swarmManager()
const answers: string[] = []

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(`${svc.url}${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  })
  const text = await res.text()
  answers.push(text)
  return { status: res.status, body: text ? JSON.parse(text) : undefined }
}

const image = () => `${reg.basic}/hm/swarm:v1`
const stack = (greeting: string) => `services:
  app:
    image: ${image()}
    command: ["sh", "-c", "trap 'exit 0' TERM; while true; do sleep 0.5; done"]
    environment: { GREETING: ${greeting} }
    stop_grace_period: 1s
    deploy:
      replicas: 2
      endpoint_mode: dnsrr
      placement:
        constraints: [node.role == worker]
`

beforeAll(async () => {
  const dir = process.env.TEST_SWARM_DIR!
  reg = await privateRegistries(`${readFileSync(join(dir, "tag"), "utf8").trim()}hub`, SWARM_HUB)
  for (const host of [swarmManagerHost(), ...swarmWorkerHosts()]) reg.trust(host)
  const pusher = dockerEngine(swarmManagerHost(), undefined, async () =>
    xRegistryAuth({ ...reg.users.basic, serveraddress: reg.basic }),
  )
  await pusher.tagImage("svc-test/busybox:latest", `${reg.basic}/hm/swarm`, "v1")
  await pusher.pushImage(image())
  await pusher.removeImage(image())
  svc = await startService({ DOCKER_HOST: swarmManagerHost(), SVC_COMPOSE_TIMEOUT: "120" })
})

afterAll(async () => {
  for (const name of ["hm-swreg", "hm-swreg-bad"]) await call("DELETE", `/api/stacks/${name}`).catch(() => {})
  await svc?.stop()
  for (const host of [swarmManagerHost(), ...swarmWorkerHosts()])
    await dockerEngine(host)
      .removeImage(image(), { force: true })
      .catch(() => {})
  await reg?.stop()
})

const services = (name: string) => manager.listServices({ label: [`${SWARM_STACK_LABEL}=${name}`] })

test("a swarm stack of a private image runs on workers that pulled it with the credentials the deploy sent", async () => {
  for (const host of swarmWorkerHosts())
    await expect(dockerEngine(host).inspectImage(image())).rejects.toMatchObject({ kind: "not_found" })
  expect(
    (await call("POST", "/api/registries", { name: "swarm", address: reg.basic, ca: reg.ca, ...reg.users.basic }))
      .status,
  ).toBe(201)
  const res = await call("POST", "/api/stacks", { name: "hm-swreg", orchestrator: "swarm", content: stack("one") })
  expect(res.status).toBe(201)
  const tasks = res.body.services[0].tasks.filter((t: { state: string }) => t.state === "running")
  expect(tasks.map((t: { node: string }) => t.node).sort()).toEqual(["worker1", "worker2"])
  // Each worker runs a container of the image it pulled (pinned by digest by the deploy).
  for (const host of swarmWorkerHosts()) {
    const running = await dockerEngine(host).listContainers({ filters: { label: [`${SWARM_STACK_LABEL}=hm-swreg`] } })
    expect(running.map((c) => c.Image.split("@")[0])).toEqual([image()])
  }
})

test("wrong credentials: an error naming the registry before anything is deployed; the running stack stays", async () => {
  const before = (await services("hm-swreg")).map((s) => [s.ID, s.Version.Index])
  expect(
    (
      await call("PUT", "/api/registries/swarm", {
        address: reg.basic,
        ca: reg.ca,
        username: "alice",
        password: "wrong-pw",
      })
    ).status,
  ).toBe(200)
  const bad = await call("POST", "/api/stacks", { name: "hm-swreg-bad", orchestrator: "swarm", content: stack("x") })
  expect([bad.status, bad.body.error.code]).toEqual([502, "registry_unauthorized"])
  expect(bad.body.error.message).toStartWith(`registry ${reg.basic} refused the credentials`)
  expect((await call("GET", "/api/stacks/hm-swreg-bad")).status).toBe(404)
  expect(await services("hm-swreg-bad")).toEqual([])

  const redeploy = await call("POST", "/api/stacks", { name: "hm-swreg", content: stack("two") })
  expect([redeploy.status, redeploy.body.error.code]).toEqual([502, "registry_unauthorized"])
  expect((await services("hm-swreg")).map((s) => [s.ID, s.Version.Index])).toEqual(before)
  expect((await call("GET", "/api/stacks/hm-swreg")).body.current_version).toBe(1)

  await call("GET", "/api/swarm/services")
  await call("GET", "/api/events/history")
  for (const text of answers) {
    expect(text).not.toContain(reg.users.basic.password)
    expect(text).not.toContain("wrong-pw")
  }
})
