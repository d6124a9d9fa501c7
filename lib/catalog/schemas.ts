// The catalog's request and response schemas, as the API takes and answers them.
import * as v from "valibot"
import { stackUpdatedSchema } from "../updates/schemas.ts"
import { VARIABLE_TYPES } from "./template.ts"

export const sourceParams = v.object({ source: v.pipe(v.string(), v.maxLength(63)) })
export const templateParams = v.object({
  source: v.pipe(v.string(), v.maxLength(63)),
  id: v.pipe(v.string(), v.maxLength(63)),
})

const lastRead = v.nullable(
  v.object({
    time: v.string(),
    ok: v.boolean(),
    error: v.nullable(v.string()),
    templates: v.number(),
    warnings: v.array(v.string()),
  }),
)

export const sourceSchema = v.object({
  name: v.string(),
  format: v.picklist(["portainer", "folder"]),
  url: v.pipe(v.nullable(v.string()), v.description("the list's URL, its credentials masked")),
  git: v.nullable(v.object({ url: v.string(), ref: v.string(), path: v.string() })),
  local: v.pipe(
    v.boolean(),
    v.description("an admin marked it as being on their own network: it may reach private addresses"),
  ),
  schedule: v.string(),
  added: v.string(),
  last_read: v.pipe(lastRead, v.description("the last read: whether it succeeded, why not, how many templates")),
  last_good: v.pipe(v.nullable(v.string()), v.description("when the copy the catalog shows was read")),
  built_in: v.boolean(),
})

export const sourceInput = v.object({
  name: v.pipe(v.string(), v.maxLength(63), v.description("lower case letters, digits and dashes")),
  format: v.pipe(
    v.picklist(["portainer", "folder"]),
    v.description("Portainer's list (2 or 3), or a folder of our own"),
  ),
  url: v.optional(v.pipe(v.string(), v.maxLength(2048), v.description("an http(s) URL of a Portainer list"))),
  git: v.optional(
    v.object({
      url: v.pipe(v.string(), v.maxLength(2048)),
      ref: v.optional(v.pipe(v.string(), v.maxLength(255))),
      path: v.optional(
        v.pipe(
          v.string(),
          v.maxLength(1024),
          v.description("the list's file, or the folder of templates (. for the root)"),
        ),
      ),
    }),
  ),
  local: v.optional(
    v.pipe(
      v.boolean(),
      v.description("on your own network: it (and its templates' logos and repositories) may reach private addresses"),
    ),
  ),
  schedule: v.optional(
    v.pipe(v.string(), v.maxLength(200), v.description("an interval (6h) or a cron expression; 6h unless given")),
  ),
})

const logo = v.pipe(v.nullable(v.string()), v.description("the logo as this service serves it (cached), or null"))

export const templateSummary = v.object({
  source: v.string(),
  id: v.string(),
  title: v.string(),
  description: v.string(),
  categories: v.array(v.string()),
  kind: v.picklist(["container", "compose", "swarm"]),
  version: v.nullable(v.string()),
  logo,
  logo_url: v.pipe(
    v.nullable(v.string()),
    v.description("the logo's own address, for a browser allowed to fetch it there"),
  ),
  admin_only: v.boolean(),
})

export const variableSchema = v.object({
  key: v.string(),
  label: v.string(),
  description: v.string(),
  type: v.picklist(VARIABLE_TYPES),
  default: v.nullable(v.string()),
  choices: v.array(v.object({ value: v.string(), label: v.string() })),
  secret: v.boolean(),
  generate: v.boolean(),
  required: v.boolean(),
})

export const templateDetail = v.object({
  ...templateSummary.entries,
  note: v.string(),
  variables: v.array(variableSchema),
  warnings: v.array(v.string()),
  compose: v.pipe(
    v.nullable(v.string()),
    v.description("the compose file; null when it lies in a repository, read at preview"),
  ),
  files: v.array(v.string()),
  repository: v.nullable(v.object({ url: v.string(), path: v.string(), ref: v.string() })),
})

export const installBody = v.object({
  name: v.pipe(v.string(), v.maxLength(63), v.description("the new stack's name")),
  values: v.optional(
    v.pipe(
      v.record(v.pipe(v.string(), v.maxLength(128)), v.pipe(v.string(), v.maxLength(4096))),
      v.description("variable key → value; a secret left out is generated"),
    ),
  ),
  dry_run: v.optional(v.pipe(v.boolean(), v.description("answer the preview and change nothing"))),
  update_policy: v.optional(
    v.pipe(v.boolean(), v.description("a guarded update policy (apply, nightly at 04:00, watched): on unless false")),
  ),
  backup: v.optional(
    v.pipe(
      v.nullable(v.pipe(v.string(), v.maxLength(63))),
      v.description(
        "a backup repository to schedule the app's backups in; null for none; left out: the first one kept",
      ),
    ),
  ),
  watch: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(3600))),
  orchestrator: v.optional(v.picklist(["compose", "swarm"])),
})

const port = v.object({ port: v.number(), protocol: v.string(), ip: v.string() })

export const previewSchema = v.object({
  name: v.string(),
  source: v.string(),
  template: v.string(),
  title: v.string(),
  version: v.nullable(v.string()),
  digest: v.string(),
  commit: v.nullable(v.string()),
  compose: v.string(),
  files: v.array(v.string()),
  env: v.array(
    v.object({ key: v.string(), value: v.nullable(v.string()), secret: v.boolean(), generated: v.boolean() }),
  ),
  guard: v.object({
    ok: v.boolean(),
    code: v.nullable(v.string()),
    message: v.nullable(v.string()),
    services: v.array(v.string()),
    images: v.array(v.string()),
    ports: v.array(port),
    volumes: v.array(v.string()),
    binds: v.array(v.object({ service: v.string(), source: v.string(), target: v.string() })),
    warnings: v.array(v.string()),
  }),
  blockers: v.array(v.string()),
  update_policy: v.nullable(v.object({ auto_update: v.string(), schedule: v.string(), watch: v.null() })),
  backup: v.nullable(v.object({ repository: v.string(), schedule: v.string() })),
  note: v.string(),
})

export const installedSchema = v.object({
  source: v.string(),
  id: v.string(),
  title: v.string(),
  version: v.nullable(v.string()),
  digest: v.string(),
  compose: v.string(),
  commit: v.nullable(v.string()),
  installed_at: v.string(),
  updated_at: v.string(),
})

const generated = v.pipe(
  v.array(v.object({ key: v.string(), value: v.string() })),
  v.description("the secrets generated for it, shown this once"),
)

export const installResult = v.variant("dry_run", [
  v.object({ ...previewSchema.entries, dry_run: v.literal(true) }),
  v.object({
    ...previewSchema.entries,
    dry_run: v.literal(false),
    stack: stackUpdatedSchema,
    installed: installedSchema,
    policy: v.nullable(
      v.object({ auto_update: v.string(), schedule: v.nullable(v.string()), watch: v.nullable(v.number()) }),
    ),
    backup: v.nullable(v.object({ repository: v.string(), schedule: v.string() })),
    generated,
  }),
])

export const statusSchema = v.object({
  stack: v.string(),
  installed: installedSchema,
  template: v.nullable(
    v.object({ source: v.string(), id: v.string(), title: v.string(), version: v.nullable(v.string()) }),
  ),
  latest: v.nullable(v.object({ version: v.nullable(v.string()), digest: v.string(), commit: v.nullable(v.string()) })),
  update_available: v.boolean(),
  edited: v.pipe(v.boolean(), v.description("the stack's compose file was changed here since the install")),
  diff: v.pipe(v.string(), v.description("a unified diff from the stack's compose file to the template's")),
  new_variables: v.array(variableSchema),
  missing: v.nullable(v.string()),
})

export const updateResult = v.object({
  stack: stackUpdatedSchema,
  installed: installedSchema,
  generated,
})

export const saveBody = v.object({
  id: v.optional(
    v.pipe(v.string(), v.maxLength(63), v.description("the template's id; the stack's name unless given")),
  ),
  title: v.optional(v.pipe(v.string(), v.maxLength(120))),
  description: v.optional(v.pipe(v.string(), v.maxLength(2000))),
  categories: v.optional(v.array(v.pipe(v.string(), v.maxLength(40)))),
  replace: v.optional(v.pipe(v.boolean(), v.description("replace a saved template of the same id"))),
})

export const savedSchema = v.object({
  source: v.literal("saved"),
  id: v.string(),
  files: v.pipe(
    v.record(v.string(), v.string()),
    v.description("the template folder's files: template.yaml, compose.yaml, files/…"),
  ),
  secrets: v.pipe(v.array(v.string()), v.description("literal secrets of the compose file made variables")),
})
