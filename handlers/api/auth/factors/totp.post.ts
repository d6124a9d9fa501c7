import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { conflict } from "#lib/errors/errors.ts"
import { qrDataUrl } from "#lib/auth/qr.ts"
import { newTotpSecret, totpUri } from "#lib/auth/totp.ts"

export default defineRoute({
  role: "public",
  detail: {
    operationId: "startTotp",
    summary:
      "Begin setting up an authenticator app: a new secret, as text and as a QR code of its otpauth:// address; it is on once a code confirms it (POST /api/auth/factors/totp/confirm within 15 minutes). 409 totp_exists when one is on",
    tags: ["auth"],
  },
  response: v.object({
    secret: v.pipe(v.string(), v.description("the secret in base32, to type into the app")),
    uri: v.pipe(v.string(), v.description("the otpauth:// address the QR code holds")),
    qr: v.pipe(v.string(), v.description("the QR code, an SVG data: URL")),
  }),
  handler: async ({ request, ctx }) => {
    const who = ctx.auth.enrollee(request)
    if (ctx.auth.factors.get(who.user).totp)
      throw conflict("an authenticator app is set up already: remove it first to set up another", "totp_exists")
    const secret = newTotpSecret()
    ctx.auth.pending.hold("totp", who.user, secret)
    const uri = totpUri(who.user, secret)
    return { secret, uri, qr: await qrDataUrl(uri) }
  },
})
