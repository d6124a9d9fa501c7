import { defineRoute } from "#lib/service/handler.ts"
import { importDockerConfig } from "#lib/registries/import.ts"
import { importResultSchema } from "#lib/registries/schemas.ts"

export default defineRoute({
  role: "admin",
  detail: {
    operationId: "importRegistries",
    summary:
      "Keep the credentials the host's docker CLI has in its config.json (the service's DOCKER_CONFIG, else ~/.docker): each entry with a user name and password becomes a registry; the rest is listed as skipped with the reason",
    tags: ["registries"],
  },
  response: importResultSchema,
  handler: async ({ ctx }) => importDockerConfig(ctx.registries),
})
