import { defineRoute } from "#lib/service/handler.ts"
import { creationOptionsSchema } from "#lib/auth/schemas.ts"

export default defineRoute({
  role: "public",
  detail: {
    operationId: "passkeyOptions",
    summary:
      "Begin registering a passkey: the options for navigator.credentials.create(), with a challenge good once for 5 minutes. For a local user signed in with a session, or sent to enrol after the password. 403 passkeys_need_https on a plain-HTTP address other than localhost (SVC_PUBLIC_URL); 409 too_many_passkeys past 20",
    tags: ["auth"],
  },
  response: creationOptionsSchema,
  handler: ({ request, ctx }) => ctx.auth.passkeyOptions(request, ctx.auth.enrollee(request)),
})
