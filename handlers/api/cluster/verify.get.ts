import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"

export default defineRoute({
  role: "admin",
  access: "cluster",
  detail: {
    operationId: "verifyClusterToken",
    summary: "Whether the bearer token is this server's cluster token (401 if not); used by probes",
    tags: ["cluster"],
  },
  response: v.object({ server_id: v.string() }),
  handler: async ({ ctx }) => ({ server_id: ctx.serverId }),
})
