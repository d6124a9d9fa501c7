// The shapes of the registry routes' input and answers. A password is input only: no answer has it.
import * as v from "valibot"
import { NAME } from "./registries.ts"

export const registryNameSchema = v.pipe(
  v.string(),
  v.regex(NAME, "a registry's name is 1 to 63 of a-z, 0-9, _ . - and starts with a letter or digit"),
  v.description("the registry's name on this server"),
)

export const registryParams = v.object({ name: registryNameSchema })

const fields = {
  address: v.pipe(
    v.string(),
    v.minLength(1),
    v.maxLength(255),
    v.description(
      "the registry's host as image references name it, with an optional path prefix (`ghcr.io/my-org`, `registry.lan:5000`, `docker.io`); `https://` may come first, `http://` only with insecure",
    ),
  ),
  username: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(255), v.description("the user name to log in as")))),
  password: v.optional(
    v.nullable(
      v.pipe(
        v.string(),
        v.minLength(1),
        v.maxLength(8192),
        v.description(
          "the password or access token: kept as a secret, never shown again; left out on an edit, the kept one stays (unless the host changes); null for none",
        ),
      ),
    ),
  ),
  ca: v.optional(
    v.nullable(
      v.pipe(
        v.string(),
        v.maxLength(65536),
        v.description("PEM certificates of a private CA the service trusts for this registry"),
      ),
    ),
  ),
  insecure: v.optional(v.pipe(v.boolean(), v.description("plain http, no TLS (refused unless said; default false)"))),
}

export const registryInput = v.object({ name: registryNameSchema, ...fields })
export const registryEdit = v.object(fields)

export const quotaSchema = v.object({
  limit: v.nullable(v.number()),
  remaining: v.number(),
  window_seconds: v.nullable(v.number()),
  checked_at: v.string(),
})

const testFields = {
  ok: v.boolean(),
  time: v.string(),
  auth: v.nullable(v.picklist(["none", "basic", "bearer"])),
  code: v.nullable(v.string()),
  message: v.string(),
}

export const testResultSchema = v.object({
  ...testFields,
  pull_quota: v.pipe(
    v.nullable(quotaSchema),
    v.description("the pull quota the registry reported (Docker Hub's `ratelimit-remaining`), if any"),
  ),
})

export const registryView = v.object({
  name: v.string(),
  address: v.pipe(v.string(), v.description("host/prefix, as given")),
  host: v.string(),
  prefix: v.string(),
  username: v.nullable(v.string()),
  has_password: v.boolean(),
  ca: v.nullable(v.string()),
  insecure: v.boolean(),
  origin: v.pipe(
    v.picklist(["api", "docker_config", "control_plane"]),
    v.description(
      "added through the API, imported from the host's docker configuration, or sent by the control plane for a copy",
    ),
  ),
  created: v.string(),
  updated: v.string(),
  last_test: v.nullable(v.object(testFields)),
  pull_quota: v.pipe(v.nullable(quotaSchema), v.description("the last pull quota the registry reported")),
})

export const importResultSchema = v.object({
  file: v.string(),
  imported: v.array(v.object({ name: v.string(), address: v.string(), username: v.string() })),
  skipped: v.array(v.object({ address: v.string(), reason: v.string() })),
})

/** What a control plane sends a node for a copy: the registries its images need, passwords included. */
export const sentRegistriesSchema = v.object({
  registries: v.pipe(
    v.array(
      v.object({
        name: registryNameSchema,
        address: fields.address,
        username: v.nullable(v.pipe(v.string(), v.maxLength(255))),
        password: v.nullable(v.pipe(v.string(), v.maxLength(8192))),
        ca: v.nullable(v.pipe(v.string(), v.maxLength(65536))),
        insecure: v.boolean(),
      }),
    ),
    v.maxLength(100),
  ),
})

export const pullResultSchema = v.object({
  ref: v.string(),
  id: v.pipe(v.string(), v.description("the image id the reference names now")),
  registry: v.pipe(v.string(), v.description("the registry's host (docker.io for Docker Hub)")),
  credentials: v.pipe(
    v.nullable(v.string()),
    v.description("the kept registry whose credentials went with the pull; null for an anonymous pull"),
  ),
  pull_quota: v.pipe(
    v.nullable(quotaSchema),
    v.description("Docker Hub's pull quota as it stood before this pull; null for other registries"),
  ),
})

export const hubQuotaSchema = v.object({
  registry: v.pipe(v.nullable(v.string()), v.description("the kept Docker Hub registry asked with, null: anonymous")),
  quota: v.pipe(v.nullable(quotaSchema), v.description("null when Docker Hub reported none")),
})
