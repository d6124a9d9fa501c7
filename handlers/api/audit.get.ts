import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { auditEntrySchema } from "#lib/auth/schemas.ts"
import { auditQuery } from "#lib/auth/audit-query.ts"

export const detail = {
  operationId: "getAudit",
  summary:
    "The audit log, newest first: changes, refusals, sign-ins, shells, MCP tool calls and token uses; filters user, route, action, status range, since/until; `next` is the cursor of the page after",
  tags: ["auth"],
}

export const query = auditQuery
export const response = v.object({ entries: v.array(auditEntrySchema), next: v.nullable(v.string()) })

export const role = "admin"

export default defineHandler<unknown, v.InferOutput<typeof query>>(({ query, ctx }) => ctx.auth.audit.query(query))
