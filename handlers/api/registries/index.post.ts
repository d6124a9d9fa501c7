import { defineRoute } from "#lib/service/handler.ts"
import { registryInput, registryView } from "#lib/registries/schemas.ts"

export default defineRoute({
  role: "admin",
  detail: {
    operationId: "addRegistry",
    summary:
      "Keep a registry's credentials: every pull, compose run, swarm deploy, update check and scan of its images uses them; the password is kept as a secret and never shown again",
    tags: ["registries"],
  },
  body: registryInput,
  response: { 201: registryView },
  handler: async ({ body, ctx, set }) => {
    const registry = await ctx.registries.add(body)
    set.status = 201
    return registry
  },
})
