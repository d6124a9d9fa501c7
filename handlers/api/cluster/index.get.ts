import { defineHandler } from "#lib/http/handler.ts"

export const detail = { summary: "Whether this server is a control plane, a member, or neither", tags: ["cluster"] }

export default defineHandler(async ({ ctx }) => {
  const m = await ctx.cluster.read()
  if (m?.role === "member") return { role: m.role, server_id: ctx.serverId, control_plane_url: m.control_plane_url, name: m.name }
  if (m?.role === "control-plane") return { role: m.role, server_id: ctx.serverId, nodes: (await ctx.nodes.list()).length }
  return { role: "none", server_id: ctx.serverId }
})
