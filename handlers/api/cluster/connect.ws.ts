import { defineSocket } from "#lib/service/handler.ts"
import { accept } from "#lib/cluster/connect.ts"

/** An outbound node's control socket: the cluster token as bearer, its server_id in X-Server-Id. */
export const access = "cluster"

export const role = "admin"

export default defineSocket(async ({ request, ctx }) => accept(ctx, request.headers.get("x-server-id")))
