import { afterEach, beforeEach, expect, setDefaultTimeout, test } from "bun:test"
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { EventBus } from "#lib/engine/events.ts"
import { DomainError, type ErrorKind } from "#lib/errors/errors.ts"
import { stackCli, type StackCli } from "#lib/stacks/stack-cli.ts"
import { Stacks } from "#lib/stacks/store.ts"
import {
  convergence,
  escapeDollars,
  swarmOrchestrator,
  type SwarmReader,
  type SwarmService,
  type SwarmTask,
} from "#lib/stacks/swarm.ts"
import { FakeCompose } from "../../support/compose.ts"
import { FakeEngine } from "../../support/fake-engine.ts"
import { testRooms } from "../../support/rooms.ts"
import { readOpened } from "#lib/data/sealed.ts"

setDefaultTimeout(30_000)

const spec = { Image: "busybox", Env: ["A=1"] }
const service = (over: Partial<SwarmService> = {}): SwarmService => ({
  ID: "s1",
  Spec: {
    Name: "web_app",
    Labels: { "com.docker.stack.namespace": "web" },
    Mode: { Replicated: { Replicas: 2 } },
    TaskTemplate: { ContainerSpec: spec },
  },
  ...over,
})
const task = (id: string, over: Partial<SwarmTask> = {}): SwarmTask => ({
  ID: id,
  ServiceID: "s1",
  NodeID: "n1",
  CreatedAt: "2026-01-01T00:00:10Z",
  DesiredState: "running",
  Spec: { ContainerSpec: spec },
  Status: { State: "running" },
  ...over,
})
const since = Date.parse("2026-01-01T00:00:05Z")

test("a stack has converged when every service has its replicas running at its current container spec", () => {
  expect(convergence([service()], [task("a"), task("b")], since)).toEqual({ done: true, failed: [] })
  // the swarm leaves empty members out of a task's copy of the spec
  expect(
    convergence(
      [service({ Spec: { ...service().Spec, TaskTemplate: { ContainerSpec: { ...spec, DNSConfig: {} } } } })],
      [task("a"), task("b")],
      since,
    ).done,
  ).toBe(true)
  // one replica short, one still starting, one at the old spec, an update under way
  expect(convergence([service()], [task("a")], since).done).toBe(false)
  expect(convergence([service()], [task("a"), task("b", { Status: { State: "starting" } })], since).done).toBe(false)
  expect(
    convergence([service()], [task("a"), task("b", { Spec: { ContainerSpec: { ...spec, Env: ["A=0"] } } })], since)
      .done,
  ).toBe(false)
  expect(convergence([service({ UpdateStatus: { State: "updating" } })], [task("a"), task("b")], since).done).toBe(
    false,
  )
  // tasks the swarm shut down do not count; a forced update makes every task anew
  expect(
    convergence(
      [service()],
      [task("a"), task("b"), task("c", { DesiredState: "shutdown", Status: { State: "shutdown" } })],
      since,
    ).done,
  ).toBe(true)
  expect(
    convergence(
      [service({ Spec: { ...service().Spec, TaskTemplate: { ContainerSpec: spec, ForceUpdate: 1 } } })],
      [task("a"), task("b")],
      since,
    ).done,
  ).toBe(false)
  // a global service: every task it keeps
  expect(
    convergence(
      [service({ Spec: { ...service().Spec, Mode: { Global: {} } } })],
      [task("a"), task("b"), task("c")],
      since,
    ).done,
  ).toBe(true)
})

test("a task that failed since the deploy, or an update the swarm gave up, fails the deploy with the task's error", () => {
  const failed = convergence(
    [service()],
    [
      task("a"),
      task("bbbbbbbbbbbbbbbb", {
        DesiredState: "shutdown",
        Status: { State: "failed", Err: "task: non-zero exit (1)" },
      }),
    ],
    since,
  )
  expect(failed.done).toBe(false)
  expect(failed.failed).toEqual(["service app: task bbbbbbbbbbbb on node n1 failed: task: non-zero exit (1)"])
  // one of the spec being replaced is the past too
  expect(
    convergence(
      [service()],
      [
        task("a"),
        task("b", { Status: { State: "starting" } }),
        task("c", {
          Spec: { ContainerSpec: { Image: "old" } },
          DesiredState: "shutdown",
          Status: { State: "failed", Err: "exit 1" },
        }),
      ],
      since,
    ),
  ).toEqual({ done: false, failed: [] })
  // one that failed before the deploy is the past
  expect(
    convergence(
      [service()],
      [
        task("a"),
        task("b"),
        task("c", {
          CreatedAt: "2026-01-01T00:00:01Z",
          DesiredState: "shutdown",
          Status: { State: "rejected", Err: "no such image" },
        }),
      ],
      since,
    ).failed,
  ).toEqual([])
  expect(
    convergence(
      [service({ UpdateStatus: { State: "rollback_completed", Message: "rolled back: update failed" } })],
      [task("a"), task("b")],
      since,
    ).failed,
  ).toEqual(["service app: update rollback_completed: rolled back: update failed"])
  // a rollback asked for converges through the rollback states
  const rolling = (State: string) => service({ UpdateStatus: { State, StartedAt: "2026-01-01T00:00:06Z" } })
  expect(convergence([rolling("rollback_started")], [task("a"), task("b")], since, { rollback: true })).toEqual({
    done: false,
    failed: [],
  })
  expect(convergence([rolling("rollback_completed")], [task("a"), task("b")], since, { rollback: true })).toEqual({
    done: true,
    failed: [],
  })
  expect(
    convergence([rolling("rollback_paused")], [task("a"), task("b")], since, { rollback: true }).failed,
  ).toHaveLength(1)
  // an update the swarm paused before the deploy began is not this deploy's
  expect(
    convergence(
      [service({ UpdateStatus: { State: "paused", StartedAt: "2026-01-01T00:00:01Z" } })],
      [task("a"), task("b")],
      since,
    ),
  ).toEqual({ done: true, failed: [] })
})

test("every $ of the deployed model is doubled, keys left as they are", () => {
  expect(
    escapeDollars({ services: { a: { environment: { X: "p$$w$rd", N: 3 }, command: ["echo", "$HOME"] } } }),
  ).toEqual({ services: { a: { environment: { X: "p$$$$w$$rd", N: 3 }, command: ["echo", "$$HOME"] } } })
})

// The model check with the real docker CLI's `stack config`; its deploys stand in.
let dataDir: string
let stacks: Stacks
let deploys: string[][]
let cli: StackCli
const swarm: SwarmReader = {
  services: async () => [],
  tasks: async () => [],
  networks: async () => [],
  removeVolumes: async () => [],
}

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), "hm-swarm-"))
  deploys = []
  const real = stackCli({
    host: "unix:///nonexistent.sock",
    toolEnv: { PATH: process.env.PATH!, HOME: "/root" },
    events: new EventBus(),
    timeouts: { run: 30, config: 30 },
    rooms: testRooms(),
  })
  cli = { ...real, run: async (_project, args) => (deploys.push(args), { code: 0, output: "" }) }
  const engine = new FakeEngine()
  stacks = new Stacks(dataDir, new FakeCompose(engine), {
    engine,
    swarm: swarmOrchestrator({ cli, engine, swarm, timeout: 5, pollMs: 10 }),
  })
})
afterEach(() => rmSync(dataDir, { recursive: true, force: true }))

const fails = async (p: Promise<unknown>, kind: ErrorKind, code: string) => {
  const err = await p.then(
    () => undefined,
    (e) => e,
  )
  expect(err).toBeInstanceOf(DomainError)
  expect([(err as DomainError).kind, (err as DomainError).code]).toEqual([kind, code])
  return err as DomainError
}

const app = (extra: string) => `services:\n  app:\n    image: busybox\n${extra}`

test("a swarm stack deploys the model the CLI printed, its $ doubled, and records its orchestrator", async () => {
  const env = [{ key: "PASS", value: "pa$$w$rd", secret: true }]
  const compose = `${app('    environment:\n      PASS: ${PASS}\n    volumes: ["./data:/data"]\n    secrets: [s]\n')}secrets:\n  s:\n    file: ./s.txt\n`
  const { stack } = await stacks.deploy(
    "web",
    { compose, env, files: { "s.txt": "secret file" } },
    { orchestrator: "swarm" },
  )
  expect(stack.state.orchestrator).toBe("swarm")
  const run = join(dataDir, "records/web/run.json")
  expect(deploys).toEqual([
    ["deploy", "-c", run, "--prune", "--resolve-image", "changed", "--with-registry-auth", "web"],
  ])
  const model = JSON.parse(readOpened(run)!)
  expect(model.services.app.environment.PASS).toBe("pa$$$$w$$rd")
  // relative paths as they resolve in the stack's folder
  expect(model.services.app.volumes[0].source).toBe(join(dataDir, "stacks/web/data"))
  expect(model.secrets.s.file).toBe(join(dataDir, "stacks/web/s.txt"))
  // named after its content: the swarm changes no secret in place
  const name = model.secrets.s.name
  expect(name).toMatch(/^web_s_[0-9a-f]{12}$/)
  await stacks.deploy("web", { compose, files: { "s.txt": "another secret" } })
  expect(JSON.parse(readOpened(run)!).secrets.s.name).not.toBe(name)
  // a redeploy keeps it; naming compose is a conflict, and so is swarm for a compose stack
  expect((await stacks.deploy("web", { compose })).stack.state.orchestrator).toBe("swarm")
  expect(deploys.length).toBe(3)
  await fails(stacks.deploy("web", { compose }, { orchestrator: "compose" }), "conflict", "orchestrator_mismatch")
  await stacks.deploy("plain", { compose: app("") })
  await fails(
    stacks.deploy("plain", { compose: app("") }, { orchestrator: "swarm" }),
    "conflict",
    "orchestrator_mismatch",
  )
  // removal is `stack rm`
  await stacks.remove("web")
  expect(deploys.at(-1)).toEqual(["rm", "web"])
  expect(existsSync(join(dataDir, "records/web"))).toBe(false)
})

test("hostile models, as the CLI resolves them, are 400 with nothing written", async () => {
  const hostile: [string, string][] = [
    [`${app("    secrets: [s]\n")}secrets:\n  s:\n    file: /etc/shadow\n`, "host_path_refused"],
    [`${app("    configs: [c]\n")}configs:\n  c:\n    file: ../../records/other/env.json\n`, "host_path_refused"],
    [app('    volumes: ["/:/host"]\n'), "host_path_refused"],
    [
      app("    volumes:\n      - type: bind\n        source: ${WHERE:-/etc}/x\n        target: /x\n"),
      "host_path_refused",
    ],
    [app("    env_file: ../outside.env\n"), "host_path_refused"],
    [app("    build: .\n"), "build_not_supported"],
  ]
  for (const [compose, code] of hostile)
    await fails(stacks.deploy("web", { compose, env: [] }, { orchestrator: "swarm" }), "invalid", code)
  expect(deploys).toEqual([])
  expect(readdirSync(dataDir).flatMap((d) => readdirSync(join(dataDir, d)))).toEqual([])
})

test("without a swarm to deploy to, a swarm stack is refused", async () => {
  const engine = new FakeEngine()
  const plain = new Stacks(dataDir, new FakeCompose(engine), { engine })
  await fails(
    plain.deploy("web", { compose: app(""), env: [] }, { orchestrator: "swarm" }),
    "conflict",
    "swarm_unavailable",
  )
})

test("removal runs stack rm again while a network of the stack is left, until nothing is", async () => {
  const runs: string[][] = []
  let networks = ["web_default"]
  const reader: SwarmReader = { ...swarm, networks: async () => networks }
  const rmCli: StackCli = {
    ...cli,
    run: async (_project, args) => (
      runs.push(args),
      runs.length === 3 && (networks = []),
      { code: runs.length === 1 ? 1 : 0, output: "failed to remove network web_default: network has active endpoints" }
    ),
  }
  let clock = 0
  const orchestrator = swarmOrchestrator({
    cli: rmCli,
    engine: new FakeEngine(),
    swarm: reader,
    timeout: 60,
    pollMs: 1,
    now: () => (clock += 1000),
  })
  await orchestrator.down({ name: "web", dir: dataDir, env: [] })
  expect(runs).toEqual([
    ["rm", "web"],
    ["rm", "web"],
    ["rm", "web"],
  ])
})
