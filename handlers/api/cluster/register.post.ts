import * as v from "valibot"
import { sameSecret } from "#lib/cluster/bearer.ts"
import { defineRoute } from "#lib/service/handler.ts"
import { conflict, refused } from "#lib/errors/errors.ts"
import { defaultName, NODE_NAME, nodeUrl } from "#lib/cluster/nodes.ts"
import { check } from "#lib/cluster/probe.ts"
import { registeredNodeSchema } from "#lib/cluster/schemas.ts"
import { outboundUrl, tunnels } from "#lib/cluster/tunnel.ts"

export default defineRoute({
  role: "public",
  detail: {
    operationId: "registerNode",
    summary: "Register a node with this control plane (sent by a joining server); returns the probed entry",
    tags: ["cluster"],
  },
  body: v.object({
    token: v.pipe(v.string(), v.minLength(1)),
    server_id: v.pipe(v.string(), v.regex(/^[A-Za-z0-9-]{1,64}$/, "must be a server id")),
    name: v.optional(
      v.pipe(v.string(), v.regex(NODE_NAME, "must be letters, digits, dot, dash or underscore (at most 63)")),
    ),
    advertise: v.optional(v.string()),
    port: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(65535))),
    connect: v.optional(v.picklist(["inbound", "outbound"])),
  }),
  response: { 200: registeredNodeSchema, 201: registeredNodeSchema },
  handler: async ({ body, ctx, peer, set }) => {
    const m = await ctx.cluster.read()
    if (m?.role !== "control-plane")
      throw conflict(
        m
          ? `this server is a member; register with its control plane ${m.control_plane_url}`
          : "this server is not a control plane: it has minted no token",
        "not_control_plane",
      )
    if (!sameSecret(body.token, m.token)) throw refused("the token is not this cluster's token", "invalid_token")
    if (body.server_id === ctx.serverId)
      throw conflict("the registering server is this control plane itself", "self_registration")
    const outbound = body.connect === "outbound"
    const url = outbound ? outboundUrl(body.server_id) : nodeUrl(body.advertise, peer, body.port)
    const { node, created } = await ctx.nodes.register({
      server_id: body.server_id,
      name: body.name ?? defaultName(body.server_id),
      url,
    })
    // An outbound node is probed once it has connected.
    const settled = outbound && !tunnels.connected(body.server_id) ? node : await check(ctx, node)
    set.status = created ? 201 : 200
    return {
      name: settled.name,
      url: settled.url,
      status: settled.status,
      error: settled.error,
      control_plane_id: ctx.serverId,
    }
  },
})
