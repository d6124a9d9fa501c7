// A stack's live state, each stack's asked of its orchestrator (lib/stacks/orchestrator.ts): compose
// reads its containers by the compose labels, a swarm its services and their tasks on every node.
// Compose projects that run on the engine but have no files here are reported too, with managed:
// false. Containers are shown with their stack's secrets hidden.
import type { ContainerSummary, Engine } from "../engine/client.ts"
import type { LogLineRecord, LogQuery } from "../engine/logs.ts"
import { notFound } from "../errors/errors.ts"
import { redactorFor } from "./env.ts"
import { serviceNames, type Stack, type StackState, type Stacks } from "./store.ts"
import type { Kept, StackHealth, StackView } from "./orchestrator.ts"
import { byProject, containersView, projectContainers } from "./view.ts"

/**
 * What a view shows of a stack kept here, from the store's memory: its state, and its services as
 * recorded on its last deploy (its compose file is read only for a stack kept before they were).
 */
async function keptOf(stacks: Stacks, name: string): Promise<Kept & { state: StackState }> {
  const state = await stacks.state(name)
  return { name, services: state.services ?? serviceNames((await stacks.read(name)).compose), state }
}

/**
 * The views of stacks kept here, each from its orchestrator (all of one orchestrator's asked at
 * once); a stack whose orchestrator cannot tell (a swarm stack on an engine that no longer manages
 * one) is shown stopped with its declared services.
 */
export async function keptViews(
  stacks: Stacks,
  kept: (Kept & { state: Pick<Stack["state"], "orchestrator"> })[],
  containers: ContainerSummary[],
): Promise<StackView[]> {
  const redactor = redactorFor(stacks)
  const groups = Map.groupBy(kept, (k) => stacks.orchestratorOf(k.state))
  const views = new Map<string, StackView>()
  await Promise.all(
    [...groups].map(async ([orchestrator, group]) => {
      const shown = await orchestrator
        .views(group, containers, redactor)
        .catch(() =>
          group.map((k) => containersView(k.name, [], { redactor, kept: k, orchestrator: orchestrator.name })),
        )
      for (const v of shown) views.set(v.name, v)
    }),
  )
  return kept.map((k) => views.get(k.name)!)
}

/**
 * How each stack fares, as its orchestrator judges its view: every stack kept here (from the store's
 * memory), then every other compose project among the containers (managed: false).
 */
export async function stackHealths(
  stacks: Stacks,
  containers: ContainerSummary[],
): Promise<(StackHealth & Pick<StackView, "name" | "managed" | "orchestrator">)[]> {
  const kept = await Promise.all(stacks.names().map((name) => keptOf(stacks, name)))
  const redactor = redactorFor(stacks)
  const others = [...byProject(containers)]
    .filter(([p]) => !stacks.has(p))
    .map(([p, cs]) => containersView(p, cs, { redactor }))
  return [...(await keptViews(stacks, kept, containers)), ...others].map((v) => ({
    name: v.name,
    managed: v.managed,
    orchestrator: v.orchestrator,
    ...stacks.orchestratorOf(v.orchestrator).health(v),
  }))
}

/** One stack's view: a stack with files here, else a compose project on the engine, else 404. */
export async function stackView(stacks: Stacks, engine: Engine, name: string): Promise<StackView> {
  const containers = await projectContainers(engine, name)
  if (!stacks.has(name)) {
    if (containers.length) return containersView(name, containers, { redactor: redactorFor(stacks) })
    throw notFound(`no stack named ${name}`)
  }
  const kept = await keptOf(stacks, name)
  const [view] = await stacks.orchestratorOf(kept.state).views([kept], containers, redactorFor(stacks))
  return view!
}

/** Every stack with files here, then every other compose project among the containers, by name. */
export async function stackViews(stacks: Stacks, containers: ContainerSummary[]): Promise<StackView[]> {
  const kept = await Promise.all(stacks.names().map((name) => keptOf(stacks, name)))
  const managed = await keptViews(stacks, kept, containers)
  const redactor = redactorFor(stacks)
  const others = [...byProject(containers)]
    .filter(([p]) => !stacks.has(p))
    .map(([p, cs]) => containersView(p, cs, { redactor }))
  return [...managed, ...others].sort((a, b) => a.name.localeCompare(b.name))
}

/** A stack's log (404 when there is neither a stack nor a compose project of that name), from its orchestrator. */
export async function stackLog(
  stacks: Stacks,
  engine: Engine,
  name: string,
  q: LogQuery,
): Promise<AsyncIterable<LogLineRecord[]>> {
  const view = await stackView(stacks, engine, name)
  return stacks.orchestratorOf(view.orchestrator).logs(view, q)
}
