import * as v from "valibot"
import type { Engine } from "#lib/engine/client.ts"
import { SERVICE_LABEL, STACK_LABEL } from "#lib/engine/containers.ts"
import { defineHandler } from "#lib/service/handler.ts"
import { badRequest, conflict, HttpError, notFound } from "#lib/http/http-error.ts"
import type { Ctx } from "#lib/service/context.ts"
import { looksSecret, publicEnv } from "#lib/stacks/env.ts"
import { fromContainers, serviceName, type Generated, type InspectedContainer } from "#lib/stacks/from-containers.ts"
import { stackName } from "#lib/stacks/name.ts"
import { envEntrySchema, stackSchema } from "#lib/stacks/schemas.ts"
import { stackView } from "#lib/stacks/state.ts"

export const body = v.pipe(
  v.object({
    containers: v.pipe(
      v.array(v.pipe(v.string(), v.minLength(1), v.maxLength(128))),
      v.minLength(1, "name at least one container"),
      v.maxLength(100),
      v.description("ids or names of the containers to adopt, none of a compose project; each becomes a service named after it"),
    ),
    stack: v.pipe(v.string(), v.description("the new stack's name (its compose project name), not taken")),
    dry_run: v.pipe(v.optional(v.boolean()), v.description("answer the generated file and what it cannot express, change nothing")),
  }),
  v.examples([{ containers: ["web", "db"], stack: "shop", dry_run: true }]),
)
export const detail = {
  operationId: "adoptContainers",
  summary:
    "Adopt containers started with `docker run` into a new stack: answers the compose file generated from their inspect data (checked with compose), the stack's environment (secret-looking keys flagged secret, values hidden) and what the file could not express. Without dry_run, writes the stack, stops the containers, brings the stack up and, once its containers run, removes the old ones (their named volumes and binds keep their data); if the stack does not come up, it is removed and the old containers start again. 409 for a stack name taken or a container of a compose project",
  tags: ["containers", "stacks"],
}

const plan = {
  name: v.string(),
  compose: v.string(),
  env: v.array(envEntrySchema),
  services: v.array(v.object({ service: v.string(), container: v.string() })),
  unexpressed: v.array(v.object({ service: v.string(), option: v.string(), detail: v.string() })),
}
export const response = {
  200: v.object({ ...plan, dry_run: v.literal(true) }),
  201: v.object({ ...plan, dry_run: v.literal(false), stack: stackSchema }),
}

/** Each container named, inspected: 404 for one the engine does not know, 400 for one named twice. */
async function inspectAll(engine: Engine, refs: string[]): Promise<InspectedContainer[]> {
  const found: InspectedContainer[] = []
  for (const ref of refs) {
    const c = (await engine.inspectContainer(ref).catch((err) => {
      throw err instanceof HttpError && err.status === 404 ? notFound(`no container ${JSON.stringify(ref)}`, "no_container") : err
    })) as unknown as InspectedContainer
    if (found.some((f) => f.Id === c.Id)) throw badRequest(`container ${serviceName(c)} is named twice`, "duplicate_container")
    const project = c.Config.Labels?.[STACK_LABEL]
    if (project) throw conflict(`container ${serviceName(c)} belongs to the compose project ${project}: adopt the project instead`, "in_compose_project")
    found.push(c)
  }
  return found
}

const projectContainers = (engine: Engine, name: string) => engine.listContainers({ all: true, filters: { label: [`${STACK_LABEL}=${name}`] } })

/** 409 when the name is a stack here or a compose project on the engine. */
async function mustBeFree(ctx: Ctx, name: string): Promise<void> {
  if (ctx.stacks.has(name) || (await projectContainers(ctx.engine, name)).length) throw conflict(`the name ${name} is taken by a stack`, "stack_exists")
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
async function undo(ctx: Ctx, name: string, written: boolean): Promise<void> {
  if (written) return ctx.stacks.remove(name).catch(() => {})
  for (const c of await projectContainers(ctx.engine, name)) await ctx.engine.removeContainer(c.Id, { force: true }).catch(() => {})
}

/**
 * Stops the old containers, writes the stack (version 1, "adopt") and brings it up, then removes the
 * old containers once the stack's run; on any failure what the adoption made goes and the old
 * containers that ran start again. A name taken meanwhile is left alone.
 */
async function replace(ctx: Ctx, name: string, plan: Generated, containers: InspectedContainer[]): Promise<void> {
  const ran = containers.filter((c) => c.State?.Running).map((c) => c.Id)
  let written = false
  try {
    for (const id of ran) await ctx.engine.containerAction(id, "stop")
    await ctx.stacks.adopt(name, plan.compose, plan.env, {})
    written = true
    if (!(await keptRunning(ctx.engine, name, plan.services.map((s) => s.service))))
      throw new HttpError(502, "adopt_failed", `the stack ${name} came up but not all of its containers kept running; the old containers run again`)
  } catch (err) {
    const taken = err instanceof HttpError && err.code === "stack_exists"
    if (!taken) await undo(ctx, name, written)
    for (const id of ran) await ctx.engine.containerAction(id, "start").catch(() => {})
    throw err
  }
  for (const c of containers) await ctx.engine.removeContainer(c.Id)
}

export default defineHandler<v.InferOutput<typeof body>>(async ({ body, ctx, set }) => {
  const name = stackName(body.stack)
  await mustBeFree(ctx, name)
  const containers = await inspectAll(ctx.engine, body.containers)
  const images = Object.fromEntries(await Promise.all([...new Set(containers.map((c) => c.Image))].map(async (id) => [id, await ctx.engine.inspectImage(id)] as const)))
  const plan = fromContainers(containers, images, (key) => looksSecret(key, ctx.config.secretKeys))
  await ctx.stacks.model(name, plan.compose, plan.env)
  const answer = { name, compose: plan.compose, env: publicEnv(plan.env), services: plan.services, unexpressed: plan.unexpressed }
  if (body.dry_run) return { ...answer, dry_run: true }
  await replace(ctx, name, plan, containers)
  set.status = 201
  return { ...answer, dry_run: false, stack: await stackView(ctx.stacks, ctx.engine, name) }
})
