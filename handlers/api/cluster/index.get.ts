import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { link } from "#lib/cluster/link.ts"

export default defineRoute({
  role: "viewer",
  detail: {
    operationId: "getCluster",
    summary: "Whether this server is a control plane, a member, or neither",
    tags: ["cluster"],
  },
  response: v.union([
    v.object({
      role: v.literal("member"),
      server_id: v.string(),
      control_plane_url: v.string(),
      name: v.optional(v.string()),
      /** A member that joined outbound: whether it holds its connection now, and why it last closed. */
      outbound: v.optional(v.object({ connected: v.boolean(), error: v.nullable(v.string()), reconnects: v.number() })),
    }),
    v.object({ role: v.literal("control-plane"), server_id: v.string(), nodes: v.number() }),
    v.object({ role: v.literal("none"), server_id: v.string() }),
  ]),
  handler: async ({ ctx }) => {
    const m = await ctx.cluster.read()
    if (m?.role === "member")
      return {
        role: m.role,
        server_id: ctx.serverId,
        control_plane_url: m.control_plane_url,
        name: m.name,
        ...(m.connect === "outbound" && { outbound: { ...link.state } }),
      }
    if (m?.role === "control-plane")
      return { role: m.role, server_id: ctx.serverId, nodes: (await ctx.nodes.list()).length }
    return { role: "none", server_id: ctx.serverId }
  },
})
