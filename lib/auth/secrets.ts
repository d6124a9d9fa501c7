// Random credentials and how they are kept: only the SHA-256 of a session id or a token is stored.
import { createHash, randomBytes } from "node:crypto"

/** 32 random bytes, base64url. */
export const randomSecret = (): string => randomBytes(32).toString("base64url")

export const sha256 = (value: string): string => createHash("sha256").update(value).digest("hex")
