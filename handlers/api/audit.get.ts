import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { auditEntrySchema } from "#lib/auth/schemas.ts"
import { auditQuery } from "#lib/auth/audit-query.ts"

export default defineRoute({
  role: "admin",
  detail: {
    operationId: "getAudit",
    summary:
      "The audit log, newest first: changes, refusals, sign-ins, shells, MCP tool calls and token uses; filters user, route, action, status range, since/until; `next` is the cursor of the page after",
    tags: ["auth"],
  },
  query: auditQuery,
  response: v.object({ entries: v.array(auditEntrySchema), next: v.nullable(v.string()) }),
  handler: ({ query, ctx }) => ctx.auth.audit.query(query),
})
