// The front door's answers as valibot schemas: the current user, users, tokens, audit entries.
import * as v from "valibot"
import { AUTH_MODES } from "./config.ts"
import { ROLES } from "./roles.ts"
import { MAX_PASSWORD } from "./passwords.ts"

export const roleSchema = v.pipe(
  v.picklist(ROLES),
  v.description("viewer (reads), operator (actions, deploys, updates), admin (everything)"),
)
const stacks = v.pipe(v.array(v.string()), v.description("the stacks this identity is limited to; absent for all"))
const source = v.picklist(["local", "oidc", "proxy", "cluster"])

export const userName = v.pipe(
  v.string(),
  v.minLength(1),
  v.maxLength(64),
  v.description("a user name: letters, digits and ._@+-"),
)
export const password = v.pipe(v.string(), v.maxLength(MAX_PASSWORD), v.description("at least 8 characters"))

export const meSchema = v.object({
  user: v.string(),
  role: roleSchema,
  source,
  stacks: v.optional(stacks),
  token: v.optional(v.pipe(v.string(), v.description("the id of the API token the request carried"))),
  modes: v.pipe(v.array(v.picklist(AUTH_MODES)), v.description("the sign-in modes on (SVC_AUTH)")),
  enrol: v.optional(
    v.pipe(
      v.boolean(),
      v.description("true: SVC_AUTH_MFA requires a second factor of this user, who has none, and may only set one up"),
    ),
  ),
})

export const userSchema = v.object({
  name: v.string(),
  role: roleSchema,
  stacks: v.optional(stacks),
  created: v.string(),
})

export const tokenSchema = v.object({
  id: v.string(),
  name: v.string(),
  user: v.string(),
  source,
  role: roleSchema,
  stacks: v.optional(stacks),
  created: v.number(),
  expires: v.optional(v.number()),
  last_used: v.optional(v.number()),
  mcp_confirm: v.boolean(),
})

export const auditEntrySchema = v.object({
  id: v.string(),
  time: v.string(),
  action: v.optional(v.string()),
  user: v.nullable(v.string()),
  source: v.nullable(v.string()),
  role: v.nullable(v.string()),
  method: v.string(),
  route: v.string(),
  target: v.record(v.string(), v.string()),
  status: v.number(),
  result: v.picklist(["ok", "denied", "failed"]),
  peer: v.nullable(v.string()),
  token: v.nullable(v.string()),
  tool: v.optional(v.string()),
  seconds: v.optional(
    v.pipe(v.number(), v.description("how long a WebSocket session was open (on its ws.close entry)")),
  ),
  via: v.optional(
    v.pipe(
      v.string(),
      v.description("the control plane (its server_id) whose gateway forwarded the call of `user`, signed in there"),
    ),
  ),
  reason: v.optional(
    v.pipe(
      v.string(),
      v.description(
        "why a WebSocket or an event stream was ended (ws.ended, stream.ended): user removed, signed out, session expired, token revoked, token expired, role changed",
      ),
    ),
  ),
})

export const sessionSchema = v.object({
  id: v.pipe(
    v.string(),
    v.description("the session's id in this list (the start of its stored digest; never the cookie)"),
  ),
  user: v.string(),
  source,
  device: v.pipe(v.string(), v.description("the browser and system its User-Agent names, in words")),
  agent: v.optional(v.pipe(v.string(), v.description("the User-Agent it signed in with"))),
  address: v.optional(v.pipe(v.string(), v.description("the address it signed in from"))),
  created: v.number(),
  last_used: v.number(),
  current: v.pipe(v.boolean(), v.description("the session this request came with")),
})

export const methodSchema = v.picklist(["totp", "passkey", "recovery_code"])

export const pendingSchema = v.object({
  next: v.pipe(
    v.picklist(["second_factor", "enrol"]),
    v.description(
      "second_factor: give a code (POST /api/auth/login/code) or use a passkey (POST /api/auth/login/passkey); enrol: set up a factor first (SVC_AUTH_MFA)",
    ),
  ),
  methods: v.pipe(v.array(methodSchema), v.description("the ways this user can give the second factor")),
})

export const recoveryCodesSchema = v.pipe(
  v.array(v.string()),
  v.description("ten single-use recovery codes, shown this once; only their digests are kept"),
)

export const passkeySchema = v.object({
  id: v.pipe(v.string(), v.description("the credential id (base64url)")),
  name: v.string(),
  created: v.number(),
  last_used: v.optional(v.number()),
})

export const passkeyName = v.pipe(
  v.string(),
  v.trim(),
  v.minLength(1),
  v.maxLength(64),
  v.description('a name to tell this passkey from the others ("laptop", "phone")'),
)

const base64url = v.pipe(v.string(), v.maxLength(16_384), v.regex(/^[\w-]*$/, "base64url"))
const credential = {
  id: base64url,
  rawId: base64url,
  authenticatorAttachment: v.optional(v.picklist(["platform", "cross-platform"])),
  clientExtensionResults: v.object({}),
  type: v.literal("public-key"),
}

/** What navigator.credentials.create() made, as JSON (PublicKeyCredential.toJSON(), or @simplewebauthn/browser's startRegistration). */
export const registrationResponseSchema = v.object({
  ...credential,
  response: v.object({
    clientDataJSON: base64url,
    attestationObject: base64url,
    authenticatorData: v.optional(base64url),
    transports: v.optional(v.pipe(v.array(v.pipe(v.string(), v.maxLength(32))), v.maxLength(10))),
    publicKeyAlgorithm: v.optional(v.number()),
    publicKey: v.optional(base64url),
  }),
})

/** What navigator.credentials.get() answered, as JSON (PublicKeyCredential.toJSON(), or @simplewebauthn/browser's startAuthentication). */
export const authenticationResponseSchema = v.object({
  ...credential,
  response: v.object({
    clientDataJSON: base64url,
    authenticatorData: base64url,
    signature: base64url,
    userHandle: v.optional(base64url),
  }),
})

const descriptor = v.object({
  id: v.string(),
  type: v.literal("public-key"),
  transports: v.optional(v.array(v.string())),
})

export const creationOptionsSchema = v.pipe(
  v.looseObject({
    challenge: v.string(),
    rp: v.object({ name: v.string(), id: v.optional(v.string()) }),
    user: v.object({ id: v.string(), name: v.string(), displayName: v.string() }),
    pubKeyCredParams: v.array(v.object({ alg: v.number(), type: v.literal("public-key") })),
    timeout: v.optional(v.number()),
    excludeCredentials: v.optional(v.array(descriptor)),
  }),
  v.description(
    "what navigator.credentials.create() takes, as JSON (PublicKeyCredential.parseCreationOptionsFromJSON, or @simplewebauthn/browser's startRegistration); its challenge is good once, for 5 minutes",
  ),
)

export const requestOptionsSchema = v.pipe(
  v.looseObject({
    challenge: v.string(),
    rpId: v.optional(v.string()),
    timeout: v.optional(v.number()),
    userVerification: v.optional(v.string()),
    allowCredentials: v.optional(v.array(descriptor)),
  }),
  v.description(
    "what navigator.credentials.get() takes, as JSON (PublicKeyCredential.parseRequestOptionsFromJSON, or @simplewebauthn/browser's startAuthentication); its challenge is good once, for 5 minutes",
  ),
)

/** Proof, before a factor is removed, that it is its owner: the password or a current code of the authenticator app. */
export const proofSchema = v.object({
  password: v.optional(password),
  code: v.optional(v.pipe(v.string(), v.maxLength(16), v.description("a current code of the authenticator app"))),
})

export const factorsSchema = v.object({
  user: v.string(),
  totp: v.pipe(v.boolean(), v.description("an authenticator app is set up")),
  passkeys: v.pipe(v.array(passkeySchema), v.description("the passkeys registered, by name")),
  recovery_codes: v.pipe(v.number(), v.description("how many unused recovery codes are left")),
  required: v.pipe(v.boolean(), v.description("SVC_AUTH_MFA requires this user to have a second factor")),
})
