// The guarded change asks the stack's orchestrator for everything that differs (lib/stacks/orchestrator.ts):
// here an orchestrator of a stack that records what it is asked (checking through compose's, with the
// fake engine), so that the guard's one path is seen in the order it asks. Compose's own pin, watch
// and re-tag through the handler: tests/handlers/api/stacks/[name]/update.post.test.ts; a swarm's
// on a real swarm: tests/integration/swarm-stacks.test.ts.
import { afterEach, beforeEach, expect, test } from "bun:test"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { EventBus } from "#lib/engine/events.ts"
import { type DomainError, isDomainError, upstream } from "#lib/errors/errors.ts"
import { composeOrchestrator } from "#lib/stacks/compose-orchestrator.ts"
import type { Orchestrator } from "#lib/stacks/orchestrator.ts"
import { Stacks } from "#lib/stacks/store.ts"
import type { WatchResult } from "#lib/stacks/watch.ts"
import { UpdateGuard } from "#lib/updates/guard.ts"
import { Notifier } from "#lib/updates/notify.ts"
import { UpdateRecords } from "#lib/updates/records.ts"
import { FakeCompose } from "../../support/compose.ts"
import { FakeEngine } from "../../support/fake-engine.ts"

const app = (image: string) => `services:\n  app:\n    image: ${image}\n`
const ok: WatchResult = { ok: true, early: false, elapsed_ms: 1000, containers: [] }
const exited: WatchResult = {
  ok: false,
  service: "app",
  reason: "service app: task failed: exit 1",
  elapsed_ms: 100,
  containers: [],
}

let dataDir: string
let stacks: Stacks
let guard: UpdateGuard
let asked: string[]
let upFails: DomainError | undefined
let watches: WatchResult[]
let problems: string[]

beforeEach(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "hm-guard-"))
  asked = []
  upFails = undefined
  watches = []
  problems = []
  const engine = new FakeEngine()
  const runner = new FakeCompose(engine)
  const recording: Orchestrator = {
    ...composeOrchestrator({ runner, engine }),
    name: "swarm",
    async up(_project, opts) {
      asked.push(`up${opts?.action === "undo" ? " (undo)" : ""}`)
      const fails = opts?.action === "undo" ? undefined : upFails
      upFails = undefined
      if (fails) throw fails
    },
    async pull() {
      asked.push("pull")
      return "up"
    },
    async pin(name, recorded) {
      asked.push(`pin version ${recorded.version}`)
      return {
        stack: name,
        ...recorded,
        images: [{ service: "app", ref: "r/app:1", image: "r/app:1@a", running: true }],
      }
    },
    async changes(pin) {
      asked.push("changes")
      const images = pin.images.map((i) => ({
        service: i.service,
        ref: i.ref,
        from: i.image,
        from_id: i.image,
        to: "r/app:1@b",
        to_id: "b",
      }))
      return { images, moved: true }
    },
    failedToRun: (err) => isDomainError(err) && err.code === "stack_failed",
    async watch() {
      asked.push("watch")
      return watches.shift() ?? ok
    },
    async rollBack(_pin, way) {
      asked.push(`rollBack${way.update ? " update" : ""}${way.sameRecords ? " same records" : ""}`)
      if (!way.update) await way.redeploy()
      return problems
    },
    async release() {
      asked.push("release")
    },
  }
  stacks = new Stacks(dataDir, runner, { engine, swarm: recording })
  const events = new EventBus()
  guard = new UpdateGuard({
    stacks,
    events,
    records: new UpdateRecords(stacks),
    notifier: new Notifier([], { serverId: "s", events }),
    watch: 5,
  })
  await stacks.deploy("shop", { compose: app("r/app:1") }, { orchestrator: "swarm" })
  asked = []
})
afterEach(() => rmSync(dataDir, { recursive: true, force: true }))

test("an update whose pull brought it up and whose watch fails is brought back by the orchestrator, and watched again", async () => {
  watches = [exited, ok]
  const outcome = await guard.update("shop", { watch: 1 })
  expect(outcome).toMatchObject({ verdict: "rolled_back", reason: exited.reason, version: 1 })
  expect(outcome.images).toEqual([expect.objectContaining({ service: "app", from: "r/app:1@a", to: "r/app:1@b" })])
  expect(asked).toEqual([
    "pin version 1",
    "pull",
    "changes",
    "watch",
    "rollBack update same records",
    "watch",
    "release",
  ])
})

test("a watched deploy whose services did not run is brought back by the store itself: the orchestrator is not asked to", async () => {
  upFails = upstream("stack shop did not converge: service app: task failed", "stack_failed")
  const outcome = await guard.watched("shop", "deploy", { watch: 1 }, () =>
    stacks.deploy("shop", { compose: app("r/app:2") }),
  )
  expect(outcome).toMatchObject({
    verdict: "rolled_back",
    reason: "stack shop did not converge: service app: task failed",
  })
  expect(asked).toEqual(["pin version 1", "up", "up (undo)", "changes", "watch", "release"])
  expect((await stacks.read("shop")).state.current_version).toBe(1)
})

test("a watched deploy whose watch fails is redeployed as the pinned version through the way back", async () => {
  watches = [exited, ok]
  const outcome = await guard.watched("shop", "deploy", { watch: 1 }, () =>
    stacks.deploy("shop", { compose: app("r/app:2") }),
  )
  expect(outcome).toMatchObject({ verdict: "rolled_back", version: 1 })
  expect(asked).toEqual(["pin version 1", "up", "changes", "watch", "rollBack", "up", "watch", "release"])
  const stack = await stacks.read("shop")
  expect([stack.state.current_version, stack.compose]).toEqual([1, app("r/app:1")])
})

test("a way back that cannot be taken is rollback_failed with what to do by hand, and the pin's hold is kept", async () => {
  watches = [exited]
  problems = ["service app: the previous image is gone; pull it and deploy"]
  const outcome = await guard.update("shop", { watch: 1 })
  expect(outcome).toMatchObject({ verdict: "rollback_failed", fix: problems[0] })
  expect(asked).not.toContain("release")
})

test("a change that failed on its own is its own error, and the pin is let go", async () => {
  upFails = upstream("docker stack deploy failed: no such network", "compose_failed")
  const err = await guard.watched("shop", "apply", { watch: 1 }, () => stacks.apply("shop")).catch((e) => e)
  expect([err.kind, err.code]).toEqual(["upstream", "compose_failed"])
  expect(asked.at(-1)).toBe("release")
  expect(guard.busy("shop")).toBe(false)
})
