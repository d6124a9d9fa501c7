import * as v from "valibot"
import { defineSocket } from "#lib/service/handler.ts"
import { tunnels } from "#lib/cluster/tunnel.ts"

/** An outbound node's end of a WebSocket stream, bridged to the caller's socket through the gateway. */
export const params = v.object({ id: v.string() })

export const access = "cluster"

export const role = "admin"

export default defineSocket(async ({ params, request }) => tunnels.adopt(params.id, request.headers.get("x-server-id")))
