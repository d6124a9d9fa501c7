// The response schemas of stacks as the API answers them: the stack with its services and
// containers, its environment entries, versions and files.
import * as v from "valibot"
import { containerSchema } from "../engine/schemas.ts"

/**
 * A stack's files in a request, relative path → text, every key kept: valibot's `record` silently
 * leaves out `__proto__`, `constructor` and `prototype`, which are valid file names (a deploy would
 * then remove those files). Paths and sizes are checked by the store (lib/stacks/files.ts).
 */
export const filesInput = v.pipe(
  v.custom<Record<string, string>>(
    (x) => !!x && typeof x === "object" && !Array.isArray(x) && Object.values(x).every((c) => typeof c === "string"),
    "an object of relative path → text",
  ),
  v.description("relative path → text"),
)

export const stackSchema = v.object({
  name: v.string(),
  managed: v.boolean(),
  orchestrator: v.pipe(
    v.picklist(["compose", "swarm"]),
    v.description("what runs the stack: compose on this engine, or a swarm (`docker stack`)"),
  ),
  capabilities: v.pipe(
    v.object({
      actions: v.pipe(
        v.array(v.picklist(["start", "stop", "restart", "pause", "unpause"])),
        v.description("the actions (POST /api/stacks/{name}/{action}) its orchestrator has a meaning for"),
      ),
      runs_on: v.pipe(
        v.picklist(["engine", "nodes"]),
        v.description(
          "where its containers run: engine, on this one (listed under each service); nodes, on the orchestrator's nodes (each service's replicas and tasks)",
        ),
      ),
    }),
    v.description("what a client may offer for the stack, as its orchestrator says"),
  ),
  status: v.picklist(["running", "partly running", "paused", "stopped"]),
  services: v.array(
    v.object({
      name: v.string(),
      containers: v.array(containerSchema),
      replicas: v.optional(
        v.pipe(v.object({ desired: v.number(), running: v.number() }), v.description("a swarm service's replicas")),
      ),
      tasks: v.optional(
        v.pipe(
          v.array(
            v.object({
              id: v.string(),
              node: v.string(),
              state: v.string(),
              desired_state: v.string(),
              error: v.optional(v.string()),
            }),
          ),
          v.description("the tasks the swarm keeps running, each on its node"),
        ),
      ),
    }),
  ),
  current_version: v.nullable(v.number()),
  env_pending: v.boolean(),
  files_pending: v.boolean(),
  files: v.array(v.string()),
  recovered: v.optional(
    v.pipe(
      v.object({ time: v.string(), message: v.string() }),
      v.description("what the start recovered of an operation a killed process left, until the next deploy or apply"),
    ),
  ),
})
export type Stack = v.InferOutput<typeof stackSchema>

/** A stack as the list answers it: with its git source's marker (lib/git), null for a stack not from git. */
export const stackListEntrySchema = v.object({
  ...stackSchema.entries,
  git: v.pipe(
    v.nullable(v.object({ url: v.string(), ref: v.string(), last_verdict: v.nullable(v.string()) })),
    v.description(
      "the repository and ref the stack's files come from, and the last sync's verdict; null when it is not a git stack",
    ),
  ),
})

/** An environment entry as answered to anyone: a secret's value is null. */
export const envEntrySchema = v.object({ key: v.string(), value: v.nullable(v.string()), secret: v.boolean() })
export type EnvEntry = v.InferOutput<typeof envEntrySchema>

/** An environment entry in the clear (cluster token routes only). */
export const envVarSchema = v.object({ key: v.string(), value: v.string(), secret: v.boolean() })

const keyChanges = v.object({ added: v.array(v.string()), removed: v.array(v.string()), changed: v.array(v.string()) })
export const versionChangesSchema = v.object({
  from: v.nullable(v.number()),
  compose: v.boolean(),
  env: keyChanges,
  files: v.optional(keyChanges),
})

export const versionSchema = v.object({
  version: v.number(),
  time: v.string(),
  action: v.picklist(["deploy", "apply", "adopt"]),
  current: v.boolean(),
  changes: versionChangesSchema,
  /** The git commit the version was deployed from (a git stack's). */
  commit: v.optional(v.string()),
})
export type StackVersionEntry = v.InferOutput<typeof versionSchema>

/** A stored version whole, as an export carries it. */
export const storedVersionSchema = v.looseObject({
  version: v.number(),
  time: v.string(),
  action: v.string(),
  compose: v.string(),
  env: v.array(envVarSchema),
})

export const fileEntrySchema = v.object({ path: v.string(), size: v.number() })

/** What a write or removal of a stack file answers. */
export const filesStateSchema = v.object({ path: v.string(), files_pending: v.boolean(), files: v.array(v.string()) })

/** A version number as a path parameter: a positive whole number (400 invalid_version). */
export const versionParam = v.pipe(
  v.string(),
  v.regex(/^[1-9]\d{0,8}$/, "a positive whole number"),
  v.description("a version number, as the stack's versions list them"),
  v.transform(Number),
)

/** The plan of adopting a compose project made elsewhere (lib/stacks/adopt.ts). */
export const adoptPlanSchema = v.object({
  name: v.string(),
  source: v.object({ working_dir: v.string(), config_files: v.array(v.string()), env_file: v.string() }),
  needed: v.array(v.object({ path: v.string(), as: v.string() })),
  compose: v.string(),
  files: v.array(v.string()),
  env: v.array(v.object({ ...envEntrySchema.entries, interpolated: v.boolean() })),
  binds: v.array(
    v.object({
      service: v.string(),
      source: v.string(),
      path: v.string(),
      action: v.picklist(["rewritten", "refused"]),
    }),
  ),
  services: v.array(
    v.object({
      name: v.string(),
      action: v.picklist(["keep", "recreate", "create", "remove"]),
      containers: v.array(v.string()),
    }),
  ),
  blockers: v.array(v.string()),
})

/** What an adoption answers: the plan, and the stack once adopted (null on a dry run). */
export const adoptResultSchema = v.object({
  ...adoptPlanSchema.entries,
  dry_run: v.boolean(),
  stack: v.nullable(stackSchema),
})

/** 409: the error envelope of a blocked adoption, with the plan. */
export const adoptBlockedSchema = v.object({
  error: v.object({ code: v.string(), message: v.string() }),
  plan: adoptPlanSchema,
})
