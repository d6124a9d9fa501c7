import { defineSocket } from "#lib/service/handler.ts"
import { accept } from "#lib/cluster/connect.ts"

export default defineSocket({
  role: "admin",
  /** An outbound node's control socket: the cluster token as bearer, its server_id in X-Server-Id. */
  access: "cluster",
  handler: async ({ request, ctx }) => accept(ctx, request.headers.get("x-server-id")),
})
