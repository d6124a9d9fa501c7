import { defineRoute } from "#lib/service/handler.ts"
import { registryParams, testResultSchema } from "#lib/registries/schemas.ts"

export default defineRoute({
  role: "operator",
  detail: {
    operationId: "testRegistry",
    summary:
      "Log in to the registry with its kept credentials and report what it answered (ok, or why not: refused credentials, an untrusted certificate, unreachable); kept as its last_test",
    tags: ["registries"],
  },
  params: registryParams,
  response: testResultSchema,
  handler: async ({ params, ctx }) => ctx.registries.test(params.name),
})
