// Random credentials and how they are kept: only the SHA-256 of a session id or a token is stored.
// Bun's own hasher and the runtime's crypto global rather than node:crypto: the service starts
// without loading that module (it holds megabytes of the runtime's pages once imported).

/** `n` random bytes. */
export const randomBytes = (n: number): Buffer => Buffer.from(crypto.getRandomValues(new Uint8Array(n)))

/** 32 random bytes, base64url. */
export const randomSecret = (): string => randomBytes(32).toString("base64url")

export const sha256 = (value: string): string => new Bun.CryptoHasher("sha256").update(value).digest("hex")

/** Whether `secret` is the one whose SHA-256 is `digest`, compared in constant time. */
export const hashesTo = (secret: string, digest: string): boolean =>
  crypto.timingSafeEqual(Buffer.from(sha256(secret), "hex"), Buffer.from(digest.padEnd(64, "0").slice(0, 64), "hex"))
