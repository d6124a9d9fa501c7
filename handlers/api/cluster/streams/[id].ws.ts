import * as v from "valibot"
import { defineSocket } from "#lib/service/handler.ts"
import { tunnels } from "#lib/cluster/tunnel.ts"

export default defineSocket({
  role: "admin",
  access: "cluster",
  /** An outbound node's end of a WebSocket stream, bridged to the caller's socket through the gateway. */
  params: v.object({ id: v.string() }),
  handler: async ({ params, request }) => tunnels.adopt(params.id, request.headers.get("x-server-id")),
})
