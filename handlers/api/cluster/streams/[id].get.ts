import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { tunnels } from "#lib/cluster/tunnel.ts"

export default defineRoute({
  role: "admin",
  access: "cluster",
  detail: {
    operationId: "takeClusterStream",
    summary:
      "An outbound node fetches the request it was told to carry out: method, path and headers in X-Hm-* headers, the body streamed",
    tags: ["cluster"],
  },
  params: v.object({ id: v.string() }),
  response: { contentType: "application/octet-stream", description: "the request's body" },
  handler: async ({ params, request }) => tunnels.take(params.id, request.headers.get("x-server-id")),
})
