// A whole stack as JSON, for moving it to another server: compose file, environment with secrets in
// the clear, the stack's other files (lib/stacks/files.ts; its data binds are not among them), every
// version with its own environment and files, what compose's model of it says (the images it
// references, its mount inventory, published ports, fixed container names, services built from files
// it does not carry), and current_version. The import writes such a document under a name without
// starting it.
import * as v from "valibot"
import { STACK_LABEL } from "../engine/containers.ts"
import type { Engine } from "../engine/client.ts"
import { envInput, type EnvVar } from "../stacks/env.ts"
import { conflict } from "../errors/errors.ts"
import type { BindEntry, VolumeEntry } from "../stacks/mounts.ts"
import { readCompose, type PublishedPort } from "../stacks/model.ts"
import { buildsLeftBehind, type PlanModel } from "./planner.ts"
import { stackName } from "../stacks/name.ts"
import { filesInput } from "../stacks/schemas.ts"
import { FILE_PATH_MAX, FILES_MAX, type StackFiles } from "../stacks/files.ts"
import { NAMED_ORCHESTRATORS, VOLUMES_LIE_ON, type NamedOrchestrator } from "../stacks/orchestrator.ts"
import type { Stacks, StackVersion } from "../stacks/store.ts"
import { measureVolumes } from "../volumes/transfer.ts"
import { checkYamlSize } from "../stacks/yaml.ts"

export const EXPORT_FORMAT = "harbormaster.stack/1"

export interface StackExport {
  format: typeof EXPORT_FORMAT
  name: string
  compose: string
  env: EnvVar[]
  /** The stack's files besides its compose file (relative path → content). */
  files: StackFiles
  versions: StackVersion[]
  current_version: number | null
  images: string[]
  /** The folder the stack's files live in on the source (relative bind paths start there). */
  dir: string
  /** With `sizes`: each volume's `size` in bytes (null when the engine has no such volume). */
  mounts: { volumes: (VolumeEntry & { size?: number | null })[]; binds: BindEntry[] }
  /** The host ports the stack publishes. */
  ports: PublishedPort[]
  /** Services built from host paths outside the stack's folder (not carried by a copy). */
  built: string[]
  /** Fixed container names (`container_name:`); absent from an export of an earlier release. */
  container_names?: string[]
  /** What runs it; absent for compose. */
  orchestrator?: NamedOrchestrator
}

/** Where a stack is read from and written to: the store, and the engine its volumes live in. */
export interface StackHost {
  stacks: Stacks
  engine: Engine
  config: { transferImage: string }
}

export async function exportStack(ctx: StackHost, name: string, opts: { sizes?: boolean } = {}): Promise<StackExport> {
  const stack = await ctx.stacks.read(stackName(name))
  const dir = ctx.stacks.dir(name)
  const model = await ctx.stacks.model(name, stack.compose, stack.env, stack.files)
  const mounts: StackExport["mounts"] = { volumes: model.volumes, binds: model.binds }
  if (opts.sizes) {
    const named = mounts.volumes.flatMap((v) => (v.name ? [v.name] : []))
    const sizes = await measureVolumes(ctx.engine, ctx.config.transferImage, named)
    mounts.volumes = mounts.volumes.map((v) => (v.name ? { ...v, size: sizes[v.name] ?? null } : v))
  }
  return {
    format: EXPORT_FORMAT,
    name,
    compose: stack.compose,
    env: stack.env,
    files: stack.files,
    versions: stack.versions,
    current_version: stack.state.current_version,
    ...(stack.state.orchestrator ? { orchestrator: stack.state.orchestrator } : {}),
    images: model.images,
    dir,
    mounts,
    ports: model.ports,
    built: buildsLeftBehind(model, dir),
    container_names: model.containerNames,
  }
}

/** What a copy plans with, from an export document: compose's model of the stack on its source. */
export function exportModel(doc: StackExport): PlanModel {
  return {
    images: doc.images,
    built: doc.built ?? [],
    containerNames: doc.container_names ?? [],
    ports: doc.ports ?? [],
    volumes: doc.mounts.volumes,
    binds: doc.mounts.binds,
    files: Object.keys(doc.files ?? {}).sort(),
    volumesOn: VOLUMES_LIE_ON[doc.orchestrator ?? "compose"],
  }
}

const storedEnv = v.array(v.object({ key: envInput.item.entries.key, value: v.string(), secret: v.boolean() }))
/** Paths and sizes are checked by the store (lib/stacks/files.ts); this bounds the document's shape. */
export const stackFiles = v.pipe(
  filesInput,
  v.check((f) => Object.keys(f).length <= FILES_MAX, `at most ${FILES_MAX} files`),
  v.check(
    (f) => Object.keys(f).every((p) => p.length <= FILE_PATH_MAX),
    `a path holds at most ${FILE_PATH_MAX} characters`,
  ),
)
const changeList = v.object({ added: v.array(v.string()), removed: v.array(v.string()), changed: v.array(v.string()) })

/** The import body: an export document (other fields are ignored) and the name to write it under. */
export const importBody = v.object({
  name: v.string(),
  compose: v.string(),
  env: storedEnv,
  files: v.optional(stackFiles),
  versions: v.array(
    v.object({
      version: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(999_999_999)),
      time: v.string(),
      action: v.picklist(["deploy", "apply", "adopt"]),
      compose: v.string(),
      env: storedEnv,
      files: v.optional(stackFiles),
      changes: v.object({
        from: v.nullable(v.number()),
        compose: v.boolean(),
        env: changeList,
        files: v.optional(changeList),
      }),
    }),
  ),
  current_version: v.nullable(v.number()),
  orchestrator: v.optional(
    v.pipe(v.picklist(NAMED_ORCHESTRATORS), v.description("what runs the stack; absent for compose")),
  ),
})
export type ImportBody = v.InferOutput<typeof importBody>

/**
 * Writes the stack without starting it. Refused: a name the engine already runs a compose project
 * under or that has files here (409), a current_version missing from the versions (400), a compose
 * file over the size bound (413) or, the current one, that does not parse (400).
 */
export async function importStack(ctx: Pick<StackHost, "stacks" | "engine">, doc: ImportBody) {
  const name = stackName(doc.name)
  for (const version of doc.versions)
    checkYamlSize(version.compose, { what: `version ${version.version}'s compose file` })
  await readCompose(doc.compose)
  const running = await ctx.engine.listContainers({ all: true, filters: { label: [`${STACK_LABEL}=${name}`] } })
  if (running.length) throw conflict(`the engine already runs a compose project named ${name}`, "name_taken")
  const stack = await ctx.stacks.importStack({ ...doc, name })
  return {
    name,
    current_version: stack.state.current_version,
    versions: stack.versions.map((v) => v.version),
    env_pending: stack.state.env_pending,
  }
}
