import { defineRoute } from "#lib/service/handler.ts"
import { FORMS, KINDS } from "#lib/alerts/channels.ts"
import { kindsView } from "#lib/alerts/schemas.ts"

export default defineRoute({
  role: "viewer",
  detail: {
    operationId: "listAlertChannelKinds",
    summary: "The kinds of alert channel and the fields of each one's form (secret ones are never shown again)",
    tags: ["alerts"],
  },
  response: kindsView,
  handler: () => KINDS.map((kind) => ({ kind, fields: FORMS[kind] })),
})
