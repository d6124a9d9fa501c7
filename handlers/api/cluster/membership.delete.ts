import * as v from "valibot"
import { leave } from "#lib/cluster/membership.ts"
import { defineHandler } from "#lib/service/handler.ts"

export const detail = {
  operationId: "leaveCluster",
  summary: "Leave the cluster: ask the control plane to drop this server, then forget locally",
  tags: ["cluster"],
}

export const response = v.object({ left: v.boolean(), removed: v.boolean(), error: v.nullable(v.string()) })

export const role = "admin"

export default defineHandler(async ({ ctx }) => leave(ctx))
