import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { tunnels } from "#lib/cluster/tunnel.ts"

export const detail = {
  operationId: "takeClusterStream",
  summary:
    "An outbound node fetches the request it was told to carry out: method, path and headers in X-Hm-* headers, the body streamed",
  tags: ["cluster"],
}

export const params = v.object({ id: v.string() })
export const response = { contentType: "application/octet-stream", description: "the request's body" }

export const access = "cluster"

export const role = "admin"

export default defineHandler(async ({ params, request }) => tunnels.take(params.id, request.headers.get("x-server-id")))
