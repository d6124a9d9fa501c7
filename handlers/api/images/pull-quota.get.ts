import { defineRoute } from "#lib/service/handler.ts"
import { hubQuotaSchema } from "#lib/registries/schemas.ts"

export default defineRoute({
  role: "operator",
  detail: {
    operationId: "dockerHubQuota",
    summary:
      "Docker Hub's pull quota now (its ratelimit-remaining), for the kept Docker Hub credentials or anonymous, read with a HEAD that Docker Hub does not count",
    tags: ["images"],
  },
  response: hubQuotaSchema,
  handler: async ({ ctx }) => ctx.registries.hubQuota(),
})
