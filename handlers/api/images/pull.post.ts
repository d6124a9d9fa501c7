import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { pullImage } from "#lib/registries/pull.ts"
import { pullResultSchema } from "#lib/registries/schemas.ts"

export default defineRoute({
  role: "operator",
  detail: {
    operationId: "pullImage",
    summary:
      "Pull an image through the engine with the credentials of its kept registry (anonymous for none); a registry's refusal (credentials, pull limit, certificate, unreachable, no such tag) is an error naming it",
    tags: ["images"],
  },
  body: v.object({
    ref: v.pipe(
      v.string(),
      v.minLength(1),
      v.maxLength(512),
      v.description("the image reference: `ghcr.io/my-org/app:1.4`"),
    ),
  }),
  response: pullResultSchema,
  handler: async ({ body, ctx }) => pullImage(ctx.engine, ctx.registries, body.ref),
})
