import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { tunnels } from "#lib/cluster/tunnel.ts"

export default defineRoute({
  role: "admin",
  access: "cluster",
  detail: {
    operationId: "answerClusterStream",
    summary:
      "An outbound node posts the answer of a stream: status and headers in X-Hm-* headers, the body streamed; answers once the caller has read it",
    tags: ["cluster"],
  },
  params: v.object({ id: v.string() }),
  /** The answer's body, streamed to the caller as it comes. */
  accepts: ["*"],
  response: v.object({ id: v.string() }),
  handler: async ({ params, request }) => {
    await tunnels.answer(params.id, request.headers.get("x-server-id"), request)
    return { id: params.id }
  },
})
