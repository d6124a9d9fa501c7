import { defineRoute } from "#lib/service/handler.ts"
import { requestOptionsSchema } from "#lib/auth/schemas.ts"

export default defineRoute({
  role: "public",
  detail: {
    operationId: "signInPasskeyOptions",
    summary:
      "Begin a sign-in with a passkey: the options for navigator.credentials.get(), with a challenge good once for 5 minutes. With the hm_pending cookie of a password waiting for its second step, the user's passkeys; without, any passkey the browser keeps (a sign-in without a password). 403 passkeys_need_https on a plain-HTTP address other than localhost (SVC_PUBLIC_URL)",
    tags: ["auth"],
  },
  response: requestOptionsSchema,
  handler: ({ request, ctx }) => ctx.auth.passkeySignInOptions(request),
})
