import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"

export const detail = {
  operationId: "verifyClusterToken",
  summary: "Whether the bearer token is this server's cluster token (401 if not); used by probes",
  tags: ["cluster"],
}

export const response = v.object({ server_id: v.string() })

export const access = "cluster"

export const role = "admin"

export default defineHandler(async ({ ctx }) => ({ server_id: ctx.serverId }))
