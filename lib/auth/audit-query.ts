// GET /api/audit's query: its filters as text, read into an AuditQuery.
import * as v from "valibot"

const whole = (what: string) =>
  v.optional(v.pipe(v.string(), v.regex(/^\d{1,15}$/, `${what} is a whole number`), v.transform(Number)))
const time = (what: string) =>
  v.optional(
    v.pipe(
      v.string(),
      v.check((s) => !Number.isNaN(Date.parse(s)), `${what} is an ISO 8601 time`),
      v.transform((s) => Date.parse(s)),
      v.description(`${what}: an ISO 8601 time`),
    ),
  )

export const auditQuery = v.object({
  user: v.optional(v.string()),
  route: v.optional(
    v.pipe(v.string(), v.description("a route pattern (/api/stacks/:name/env) or its prefix (/api/stacks)")),
  ),
  action: v.optional(v.pipe(v.string(), v.description("login, logout, setup, ws.open, ws.close, mcp.tool"))),
  status_min: whole("status_min"),
  status_max: whole("status_max"),
  since: time("since"),
  until: time("until"),
  cursor: v.optional(v.pipe(v.string(), v.regex(/^\d{13}-\d{6}$/, "a cursor is the `next` of a page before"))),
  limit: v.optional(
    v.pipe(v.string(), v.regex(/^\d{1,4}$/), v.transform(Number), v.minValue(1), v.maxValue(1000)),
    "100",
  ),
})
