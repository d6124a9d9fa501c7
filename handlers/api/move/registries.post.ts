import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { sentRegistriesSchema } from "#lib/registries/schemas.ts"

export default defineRoute({
  role: "admin",
  access: "cluster",
  detail: {
    operationId: "receiveRegistries",
    summary:
      "Keep the registry credentials a control plane sends for a copy or move to this server (stored as secrets, origin control_plane); a registry this server's own admin keeps at the same address stays as it is (cluster bearer token required)",
    tags: ["move"],
  },
  body: sentRegistriesSchema,
  response: v.object({ stored: v.array(v.string()), kept: v.array(v.string()) }),
  handler: async ({ body, ctx }) => ctx.registries.receive(body.registries),
})
