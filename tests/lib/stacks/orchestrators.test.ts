// What each orchestrator answers for the parts of a stack that differ (lib/stacks/orchestrator.ts),
// against the fake engine and its swarm: the views and their health, the actions, whether a person
// stopped the stack, an update's pin and what moved. The store asking a stack's own: store.test.ts;
// the real thing: tests/integration/stacks.test.ts and swarm-stacks.test.ts.
import { beforeEach, expect, test } from "bun:test"
import { SERVICE_LABEL, STACK_LABEL } from "#lib/engine/containers.ts"
import { isDomainError, upstream } from "#lib/errors/errors.ts"
import { composeOrchestrator } from "#lib/stacks/compose-orchestrator.ts"
import type { Kept, Orchestrator } from "#lib/stacks/orchestrator.ts"
import type { StackCli } from "#lib/stacks/stack-cli.ts"
import { SWARM_STACK_LABEL, swarmOrchestrator } from "#lib/stacks/swarm.ts"
import { FakeCompose } from "../../support/compose.ts"
import { FakeEngine } from "../../support/fake-engine.ts"

const shown = () => (text: string) => text.replaceAll("s3cret", "***")
const kept = (name: string, services: string[]): Kept => ({
  name,
  services,
  state: { current_version: 1, env_pending: false, files_pending: false, files: [] },
})
const recorded = { version: 1, compose: "services: {}\n", env: [], files: {} }

let engine: FakeEngine
let compose: Orchestrator
let swarm: Orchestrator

beforeEach(() => {
  engine = new FakeEngine()
  compose = composeOrchestrator({ runner: new FakeCompose(engine), engine })
  swarm = swarmOrchestrator({ cli: {} as StackCli, engine, timeout: 5, pollMs: 1 })
})

const container = (service: string, state: "running" | "exited" | "paused", project = "web") =>
  engine.addContainer({
    name: `${project}-${service}-1`,
    state,
    labels: { [STACK_LABEL]: project, [SERVICE_LABEL]: service, secret: "s3cret" },
  })

test("compose: a stack's view is its containers under their services, its health judged from them", async () => {
  container("web", "running")
  container("db", "exited")
  container("api", "running", "other")
  const [view] = await compose.views(
    [kept("web", ["web", "db", "cache"])],
    await engine.listContainers({ all: true }),
    shown,
  )
  expect(view).toMatchObject({ name: "web", managed: true, orchestrator: "compose", status: "partly running" })
  expect(view!.capabilities).toEqual({ actions: ["start", "stop", "restart", "pause", "unpause"], runs_on: "engine" })
  expect(view!.services.map((s) => [s.name, s.containers.map((c) => c.state)])).toEqual([
    ["cache", []],
    ["db", ["exited"]],
    ["web", ["running"]],
  ])
  expect(view!.services[2]!.containers[0]!.labels.secret).toBe("***")
  expect(compose.health(view!)).toEqual({ health: "degraded", reason: "1 of 2 containers running" })
})

test("compose: an action acts on the containers in the state it acts on; nothing of the name is undefined", async () => {
  container("web", "running")
  container("db", "paused")
  expect(await compose.stopped("web")).toBe(false)
  expect(await compose.act("web", "pause")).toBe("1 container")
  expect(await compose.act("web", "stop")).toBe("2 containers")
  expect([...engine.containers.values()].map((c) => c.state)).toEqual(["exited", "exited"])
  expect(await compose.stopped("web")).toBe(true)
  expect(await compose.act("nothing", "start")).toBeUndefined()
  expect(await compose.stopped("nothing")).toBe(false)
})

test("swarm: a stack's view is its services' replicas and tasks by node, its declared services beside", async () => {
  engine.swarm.seed(2)
  engine.swarm.addService({ name: "shop_web", labels: { [SWARM_STACK_LABEL]: "shop" }, replicas: 2 })
  engine.swarm.addService({ name: "other_web", labels: { [SWARM_STACK_LABEL]: "other" } })
  const [view] = await swarm.views([kept("shop", ["web", "worker"])], [], shown)
  expect(view).toMatchObject({ name: "shop", orchestrator: "swarm", status: "running", current_version: 1 })
  // A client offers a restart only, and the services' tasks on their nodes.
  expect(view!.capabilities).toEqual({ actions: ["restart"], runs_on: "nodes" })
  const web = view!.services.find((s) => s.name === "web")!
  expect(web.replicas).toEqual({ desired: 2, running: 2 })
  expect(web.tasks!.map((t) => t.state)).toEqual(["running", "running"])
  expect(web.tasks!.every((t) => t.node.startsWith("worker") || t.node === "manager")).toBe(true)
  expect(view!.services.find((s) => s.name === "worker")).toEqual({
    name: "worker",
    containers: [],
    replicas: { desired: 0, running: 0 },
    tasks: [],
  })
  expect(swarm.health(view!)).toEqual({ health: "running", reason: null })
  expect(swarm.health({ ...view!, services: [{ ...web, replicas: { desired: 2, running: 1 } }] })).toEqual({
    health: "degraded",
    reason: "web: 1 of 2 replicas",
  })
  // The view a service list that cannot be read leaves (a stopped one with its declared services) says so.
  expect(swarm.health({ ...view!, services: [{ name: "web", containers: [] }] }).reason).toContain("cannot be read")
})

test("swarm: off a manager the views fail as the engine does", async () => {
  const err = await swarm.views([kept("shop", ["web"])], [], shown).catch((e) => e)
  expect(isDomainError(err, "conflict") && err.code).toBe("not_swarm_manager")
})

test("swarm: a restart updates each service by force; the other actions are not_supported; no one stops it", async () => {
  engine.swarm.seed(1)
  const web = engine.swarm.addService({ name: "shop_web", labels: { [SWARM_STACK_LABEL]: "shop" } })
  expect(await swarm.act("shop", "restart")).toBe("1 service")
  expect(engine.swarm.services.get(web.ID)!.Spec.TaskTemplate.ForceUpdate).toBe(1)
  for (const action of ["start", "stop", "pause", "unpause"] as const) {
    const err = await swarm.act("shop", action).catch((e) => e)
    expect([err.kind, err.code]).toEqual(["conflict", "not_supported"])
  }
  expect(await swarm.stopped("shop")).toBe(false)
})

test("swarm: the pin is each service's image as its spec names it; a new spec image is what moved", async () => {
  engine.swarm.seed(1)
  const web = engine.swarm.addService({
    name: "shop_web",
    labels: { [SWARM_STACK_LABEL]: "shop" },
    image: "registry.test/app:1@sha256:aaa",
  })
  const pin = await swarm.pin("shop", recorded)
  expect(pin.images).toEqual([
    { service: "web", ref: "registry.test/app:1", image: "registry.test/app:1@sha256:aaa", running: true },
  ])
  expect(await swarm.changes(pin)).toEqual({
    moved: false,
    images: [expect.objectContaining({ service: "web", from: "registry.test/app:1@sha256:aaa", to: null })],
  })
  const spec = engine.swarm.services.get(web.ID)!.Spec
  spec.TaskTemplate.ContainerSpec = { Image: "registry.test/app:1@sha256:bbb" }
  expect(await swarm.changes(pin)).toEqual({
    moved: true,
    images: [expect.objectContaining({ service: "web", to: "registry.test/app:1@sha256:bbb" })],
  })
})

test("what did not run after a change is a watch that failed early for a swarm, the change's own error for compose", () => {
  const converged = upstream("stack shop did not converge: service web: task failed", "stack_failed")
  expect(swarm.failedToRun(converged)).toBe(true)
  expect(swarm.failedToRun(upstream("docker stack deploy failed", "compose_failed"))).toBe(false)
  expect(compose.failedToRun(converged)).toBe(false)
})
