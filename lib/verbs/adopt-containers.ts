// Adopting containers started with `docker run` into a new stack: the compose file generated from
// their inspect data, checked with compose; then the old containers stopped, the stack written and
// brought up, and the old containers removed once the stack's containers keep running. On any failure
// what the adoption made goes and the old containers that ran start again.
import type { Engine } from "../engine/client.ts"
import { SERVICE_LABEL, STACK_LABEL } from "../engine/containers.ts"
import { conflict, invalid, isDomainError, notFound, upstream } from "../errors/errors.ts"
import { looksSecret, publicEnv } from "../stacks/env.ts"
import { fromContainers, serviceName, type Generated, type InspectedContainer } from "../stacks/from-containers.ts"
import { stackName } from "../stacks/name.ts"
import { projectContainers } from "../stacks/view.ts"
import type { Stacks } from "../stacks/store.ts"

/** What an adoption of containers uses of the service. */
export interface AdoptContainersDeps {
  engine: Engine
  stacks: Stacks
  secretKeys: string[]
}

/** The generated stack: its compose file, its environment with secrets hidden, and what the file could not express. */
export interface ContainersPlan {
  name: string
  compose: string
  env: ReturnType<typeof publicEnv>
  services: Generated["services"]
  unexpressed: Generated["unexpressed"]
}

/** Each container named, inspected: 404 for one the engine does not know, 400 for one named twice, 409 for one of a compose project. */
async function inspectAll(engine: Engine, refs: string[]): Promise<InspectedContainer[]> {
  const found: InspectedContainer[] = []
  for (const ref of refs) {
    const c = (await engine.inspectContainer(ref).catch((err) => {
      throw isDomainError(err, "not_found") ? notFound(`no container ${JSON.stringify(ref)}`, "no_container") : err
    })) as unknown as InspectedContainer
    if (found.some((f) => f.Id === c.Id))
      throw invalid(`container ${serviceName(c)} is named twice`, "duplicate_container")
    const project = c.Config.Labels?.[STACK_LABEL]
    if (project)
      throw conflict(
        `container ${serviceName(c)} belongs to the compose project ${project}: adopt the project instead`,
        "in_compose_project",
      )
    found.push(c)
  }
  return found
}

/** 409 when the name is a stack here or a compose project on the engine. */
async function mustBeFree(d: AdoptContainersDeps, name: string): Promise<void> {
  if (d.stacks.has(name) || (await projectContainers(d.engine, name)).length)
    throw conflict(`the name ${name} is taken by a stack`, "stack_exists")
}

/** Whether every service of the stack has a running container. */
async function running(engine: Engine, name: string, services: string[]): Promise<boolean> {
  const containers = await projectContainers(engine, name)
  return services.every((s) => containers.some((c) => c.Labels[SERVICE_LABEL] === s && c.State === "running"))
}

/** Whether the stack's containers run at each look over two seconds: one that exits at once is seen. */
async function keptRunning(engine: Engine, name: string, services: string[]): Promise<boolean> {
  for (let look = 0; look < 10; look++) {
    await Bun.sleep(200)
    if (!(await running(engine, name, services))) return false
  }
  return true
}

/** Takes away what the adoption made: the stack once written, else the containers a failed `up` left. */
async function undo(d: AdoptContainersDeps, name: string, written: boolean): Promise<void> {
  if (written) {
    await d.stacks.remove(name).catch(() => {})
    return
  }
  for (const c of await projectContainers(d.engine, name))
    await d.engine.removeContainer(c.Id, { force: true }).catch(() => {})
}

/**
 * Stops the old containers, writes the stack (version 1, "adopt") and brings it up, then removes the
 * old containers once the stack's run; on any failure what the adoption made goes and the old
 * containers that ran start again. A name taken meanwhile is left alone.
 */
async function replace(
  d: AdoptContainersDeps,
  name: string,
  plan: Generated,
  containers: InspectedContainer[],
): Promise<void> {
  const ran = containers.filter((c) => c.State?.Running).map((c) => c.Id)
  let written = false
  try {
    for (const id of ran) await d.engine.containerAction(id, "stop")
    await d.stacks.adopt(name, { compose: plan.compose, env: plan.env, files: {} })
    written = true
    if (
      !(await keptRunning(
        d.engine,
        name,
        plan.services.map((s) => s.service),
      ))
    )
      throw upstream(
        `the stack ${name} came up but not all of its containers kept running; the old containers run again`,
        "adopt_failed",
      )
  } catch (err) {
    const taken = isDomainError(err) && err.code === "stack_exists"
    if (!taken) await undo(d, name, written)
    for (const id of ran) await d.engine.containerAction(id, "start").catch(() => {})
    throw err
  }
  for (const c of containers) await d.engine.removeContainer(c.Id)
}

/** The plan for containers `refs` as stack `stack`; unless `dryRun`, the adoption too. */
export async function adoptContainers(
  d: AdoptContainersDeps,
  stack: string,
  refs: string[],
  dryRun: boolean,
): Promise<ContainersPlan> {
  const name = stackName(stack)
  await mustBeFree(d, name)
  const containers = await inspectAll(d.engine, refs)
  const images = Object.fromEntries(
    await Promise.all(
      [...new Set(containers.map((c) => c.Image))].map(async (id) => [id, await d.engine.inspectImage(id)] as const),
    ),
  )
  const plan = fromContainers(containers, images, (key) => looksSecret(key, d.secretKeys))
  await d.stacks.model(name, plan.compose, plan.env)
  if (!dryRun) await replace(d, name, plan, containers)
  return {
    name,
    compose: plan.compose,
    env: publicEnv(plan.env),
    services: plan.services,
    unexpressed: plan.unexpressed,
  }
}
