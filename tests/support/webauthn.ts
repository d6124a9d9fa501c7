// A software passkey authenticator for handler tests: a P-256 key made with node:crypto, what a
// browser's navigator.credentials.create() and .get() would answer for it (clientDataJSON, the
// authenticator data with its RP id hash, flags and counter, a "none" attestation in CBOR, an ES256
// signature), so that the service's real checks run on real answers. Each answer can be bent: another
// origin, RP id, challenge or counter.
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from "node:crypto"
import { isoCBOR } from "@simplewebauthn/server/helpers"

const b64url = (bytes: Uint8Array | string) => Buffer.from(bytes).toString("base64url")
const sha256 = (data: Uint8Array | string) => createHash("sha256").update(data).digest()

const FLAG_UP = 0x01
const FLAG_UV = 0x04
const FLAG_AT = 0x40

/** How an answer is bent: by default it is what a browser on `origin` would send. */
export interface Bend {
  origin?: string
  rpId?: string
  challenge?: string
  counter?: number
  /** Whether the user was verified (a PIN, a fingerprint); default true. */
  verified?: boolean
}

export class SoftAuthenticator {
  readonly id = b64url(randomBytes(16))
  private key: KeyObject
  private publicJwk: { x: string; y: string }
  counter = 0
  /** The user handle the registration options gave (sent back by a sign-in without a password). */
  handle: string | undefined

  constructor(
    readonly origin: string,
    readonly rpId: string,
  ) {
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" })
    this.key = privateKey
    this.publicJwk = publicKey.export({ format: "jwk" }) as { x: string; y: string }
  }

  private authData(rpId: string, flags: number, counter: number, attested?: Uint8Array): Buffer {
    const head = Buffer.alloc(37)
    sha256(rpId).copy(head, 0)
    head[32] = flags
    head.writeUInt32BE(counter, 33)
    return Buffer.concat([head, ...(attested ? [attested] : [])])
  }

  private clientData(type: string, challenge: string, origin: string): string {
    return JSON.stringify({ type, challenge, origin, crossOrigin: false })
  }

  /** What navigator.credentials.create() answers to `options` (the JSON the service gave). */
  register(options: { challenge: string; user: { id: string } }, bend: Bend = {}) {
    this.handle = options.user.id
    const cose = new Map<number, number | Uint8Array>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, Buffer.from(this.publicJwk.x, "base64url")],
      [-3, Buffer.from(this.publicJwk.y, "base64url")],
    ])
    const id = Buffer.from(this.id, "base64url")
    const length = Buffer.alloc(2)
    length.writeUInt16BE(id.length)
    const attested = Buffer.concat([Buffer.alloc(16), length, id, isoCBOR.encode(cose)])
    const flags = FLAG_UP | (bend.verified === false ? 0 : FLAG_UV) | FLAG_AT
    const authData = this.authData(bend.rpId ?? this.rpId, flags, bend.counter ?? this.counter, attested)
    const attestation = isoCBOR.encode(
      new Map<string, string | Map<string, string> | Uint8Array>([
        ["fmt", "none"],
        ["attStmt", new Map<string, string>()],
        ["authData", authData],
      ]),
    )
    const clientDataJSON = this.clientData(
      "webauthn.create",
      bend.challenge ?? options.challenge,
      bend.origin ?? this.origin,
    )
    return {
      id: this.id,
      rawId: this.id,
      type: "public-key" as const,
      clientExtensionResults: {},
      response: {
        clientDataJSON: b64url(clientDataJSON),
        attestationObject: b64url(attestation),
        transports: ["internal"],
      },
    }
  }

  /** What navigator.credentials.get() answers to `options`: the counter moves on by one unless bent. */
  assert(options: { challenge: string }, bend: Bend = {}) {
    this.counter = bend.counter ?? this.counter + 1
    const flags = FLAG_UP | (bend.verified === false ? 0 : FLAG_UV)
    const authData = this.authData(bend.rpId ?? this.rpId, flags, this.counter)
    const clientDataJSON = this.clientData(
      "webauthn.get",
      bend.challenge ?? options.challenge,
      bend.origin ?? this.origin,
    )
    const signature = sign("sha256", Buffer.concat([authData, sha256(clientDataJSON)]), this.key)
    return {
      id: this.id,
      rawId: this.id,
      type: "public-key" as const,
      clientExtensionResults: {},
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        ...(this.handle && { userHandle: this.handle }),
      },
    }
  }
}
