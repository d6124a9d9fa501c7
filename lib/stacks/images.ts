// The image references of a stack: those compose's model of it names (interpolated with its environment)
// and those its containers run (found by the compose project label), each once.
import { STACK_LABEL } from "../engine/containers.ts"
import type { Engine } from "../engine/client.ts"
import { notFound } from "../errors/errors.ts"
import { stackName } from "./name.ts"
import type { Stacks } from "./store.ts"

export async function stackImageRefs(stacks: Stacks, engine: Engine, name: string): Promise<string[]> {
  stackName(name)
  const declared = stacks.has(name)
    ? await stacks.read(name).then(async (s) => (await stacks.model(name, s.compose, s.env)).images)
    : []
  // A container lists its image by id once the tag has moved on; its configuration keeps the reference.
  const containers = await engine.listContainers({ all: true, filters: { label: [`${STACK_LABEL}=${name}`] } })
  const running = await Promise.all(containers.map(async (c) => (await engine.inspectContainer(c.Id)).Config.Image))
  if (!stacks.has(name) && !running.length) throw notFound(`no stack named ${name}`)
  return [...new Set([...declared, ...running])]
}
