// Compose on the service's engine, the default orchestrator (lib/stacks/orchestrator.ts): `config`
// checks, `up -d` brings up (and recreates what binds a changed file), `pull` fetches newer images,
// `down` takes down. What runs is the project's containers, found by the compose labels: their view,
// their actions, their log, their health watch (lib/stacks/watch.ts); a guarded change pins each
// service's image and brings it back by re-pointing its tag (lib/stacks/pin.ts).
import type { ContainerSummary, Engine } from "../engine/client.ts"
import { STACK_LABEL, type ContainerRecord } from "../engine/containers.ts"
import type { ComposeProject, ComposeRunner } from "./compose.ts"
import { stackLogs } from "./logs.ts"
import { candidateModel } from "./model.ts"
import {
  errorMessage,
  tailOf,
  type Orchestrator,
  type StackAction,
  type StackHealth,
  type StackView,
} from "./orchestrator.ts"
import { holdImages, imageChanges, pinStack, releaseImages, restoreImages, type Pin } from "./pin.ts"
import { byProject, containersView, projectContainers } from "./view.ts"
import { watchStack } from "./watch.ts"
import { upstream } from "../errors/errors.ts"

/** Which containers an action acts on, by their state. */
const ACTS: Record<StackAction, (state: string) => boolean> = {
  start: (s) => s === "created" || s === "exited",
  stop: (s) => s === "running" || s === "paused" || s === "restarting",
  restart: (s) => s !== "paused",
  pause: (s) => s === "running",
  unpause: (s) => s === "paused",
}

const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`

/** A stack's health from its containers (named by their compose service). */
export function containersHealth(view: StackView): StackHealth {
  const containers = view.services.flatMap((s) => s.containers)
  const names = (cs: ContainerRecord[]) => [...new Set(cs.map((c) => c.service ?? c.name))].sort().join(", ")
  if (!containers.length) return { health: "stopped", reason: "no containers" }
  if (view.status === "stopped")
    return { health: "stopped", reason: `${plural(containers.length, "container")} stopped` }
  if (view.status === "paused") return { health: "degraded", reason: "paused" }
  const unhealthy = containers.filter((c) => c.state === "running" && /\(unhealthy\)/.test(c.status))
  const restarting = containers.filter((c) => c.state === "restarting")
  const reasons = [
    view.status === "partly running" &&
      `${containers.filter((c) => c.state === "running").length} of ${plural(containers.length, "container")} running`,
    restarting.length && `restarting: ${names(restarting)}`,
    unhealthy.length && `unhealthy: ${names(unhealthy)}`,
  ].filter(Boolean)
  return reasons.length ? { health: "degraded", reason: reasons.join("; ") } : { health: "running", reason: null }
}

export interface ComposeOrchestratorOptions {
  runner: ComposeRunner
  engine: Engine
}

export function composeOrchestrator({ runner, engine }: ComposeOrchestratorOptions): Orchestrator {
  const must = async (project: ComposeProject, args: string[], action: string, signal?: AbortSignal) => {
    const { code, output } = await runner.run(project, args, action, { signal })
    if (code !== 0) throw upstream(`compose ${args[0]} failed: ${tailOf(output)}`, "compose_failed")
  }
  return {
    name: "compose",
    check: (input) => candidateModel(runner, input),
    async up(project, { pull, recreate = [], action = "up", signal } = {}) {
      if (pull) await must(project, ["pull"], "pull", signal)
      await must(project, ["up", "-d", "--remove-orphans"], action, signal)
      if (recreate.length)
        await must(project, ["up", "-d", "--no-deps", "--force-recreate", ...recreate], action, signal)
    },
    async down(project, { volumes, action = "down", signal } = {}) {
      await must(project, ["down", "--remove-orphans", ...(volumes ? ["--volumes"] : [])], action, signal)
    },
    async volumes(name) {
      return (await engine.listVolumes({ label: [`${STACK_LABEL}=${name}`] })).map((v) => v.Name)
    },
    async pull(project, { signal } = {}) {
      await must(project, ["pull"], "pull", signal)
      return "pulled"
    },
    async views(kept, containers: ContainerSummary[], redactor) {
      const projects = byProject(containers)
      return kept.map((k) => containersView(k.name, projects.get(k.name) ?? [], { redactor, kept: k }))
    },
    health: containersHealth,
    async act(name, action) {
      const containers = await projectContainers(engine, name)
      if (!containers.length) return undefined
      const acted = containers.filter((c) => ACTS[action](c.State))
      for (const c of acted) await engine.containerAction(c.Id, action)
      return plural(acted.length, "container")
    },
    async stopped(name) {
      const containers = await projectContainers(engine, name)
      return containers.length > 0 && containers.every((c) => c.State === "exited" || c.State === "created")
    },
    logs: (view, q) =>
      stackLogs(
        engine,
        view.services.flatMap((s) => s.containers.map((c) => c.id)),
        q,
      ),
    async pin(name, recorded) {
      const pin = await pinStack(engine, name, recorded)
      await holdImages(engine, pin)
      return pin
    },
    changes: (pin) => imageChanges(engine, pin as Pin),
    failedToRun: () => false,
    watch: (name, pin, run) =>
      watchStack(engine, name, {
        ...run,
        ignore: pin?.images.filter((i) => !i.running).map((i) => i.service) ?? [],
      }),
    async rollBack(pin, way) {
      const problems = await restoreImages(engine, pin as Pin)
      if (problems.length) return problems
      try {
        await (way.sameRecords ? way.up() : way.redeploy())
      } catch (err) {
        return [
          `bringing the previous state back failed (${errorMessage(err)}): look at the stack's containers and bring it up by hand`,
        ]
      }
      return []
    },
    release: (pin) => releaseImages(engine, pin as Pin),
  }
}
