import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { tunnels } from "#lib/cluster/tunnel.ts"

/** The answer's body, streamed to the caller as it comes. */
export const accepts = ["*"]
export const detail = {
  operationId: "answerClusterStream",
  summary:
    "An outbound node posts the answer of a stream: status and headers in X-Hm-* headers, the body streamed; answers once the caller has read it",
  tags: ["cluster"],
}

export const params = v.object({ id: v.string() })
export const response = v.object({ id: v.string() })

export const access = "cluster"

export const role = "admin"

export default defineHandler(async ({ params, request }) => {
  await tunnels.answer(params.id, request.headers.get("x-server-id"), request)
  return { id: params.id }
})
