import * as v from "valibot"
import { leave } from "#lib/cluster/membership.ts"
import { defineRoute } from "#lib/service/handler.ts"

export default defineRoute({
  role: "admin",
  detail: {
    operationId: "leaveCluster",
    summary: "Leave the cluster: ask the control plane to drop this server, then forget locally",
    tags: ["cluster"],
  },
  response: v.object({ left: v.boolean(), removed: v.boolean(), error: v.nullable(v.string()) }),
  handler: async ({ ctx }) => leave(ctx),
})
