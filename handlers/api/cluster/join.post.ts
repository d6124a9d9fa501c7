import * as v from "valibot"
import { join } from "#lib/cluster/membership.ts"
import { defineRoute } from "#lib/service/handler.ts"
import { NODE_NAME } from "#lib/cluster/nodes.ts"
import { probedNodeSchema } from "#lib/cluster/schemas.ts"

export default defineRoute({
  role: "admin",
  detail: {
    operationId: "joinCluster",
    summary: "Join a cluster: register this server with a control plane and keep the token",
    tags: ["cluster"],
  },
  body: v.pipe(
    v.object({
      control_plane_url: v.string(),
      token: v.pipe(v.string(), v.minLength(1)),
      name: v.optional(
        v.pipe(v.string(), v.regex(NODE_NAME, "must be letters, digits, dot, dash or underscore (at most 63)")),
      ),
      advertise: v.optional(v.string()),
      connect: v.optional(v.picklist(["inbound", "outbound"])),
    }),
    v.examples([{ control_plane_url: "http://cp.lan:8080", token: "q3v…", name: "node1" }]),
  ),
  response: v.object({ role: v.literal("member"), control_plane_url: v.string(), node: probedNodeSchema }),
  handler: async ({ body, ctx }) => join(ctx, body),
})
