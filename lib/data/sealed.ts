// Secrets at rest: a file that holds secrets (a stack's environment, its run file, its versions, a git
// source's token, the cluster token, restic passwords, alert channels) is written sealed with the
// service's secret key, which lives outside the data directory (lib/data/secret-key.ts): AES-256-GCM,
// a random 96-bit nonce per write, in a small JSON envelope naming the key it was sealed with:
//   {"harbormaster-sealed":1,"key":"<key id>","nonce":"<base64>","data":"<base64 ciphertext+tag>"}
// A copy of the data directory alone (or a backup of it) holds no secret in the clear. Reading opens a
// sealed file with the key it names (the current one or a previous one during a rotation) and passes
// a plain file through as it is, so a data directory written before sealing is read as ever and sealed
// at its next write (or by `resealAll` at start).
//
// The process has one keyring (`useKeys`, set at start from the configuration); code that runs without
// one (a unit test building a store by hand) gets a key of its own made for the process, which nothing
// outside it can read.
import type * as NodeCrypto from "node:crypto"
import { readFileSync } from "node:fs"
import { internal } from "../errors/errors.ts"

export interface SecretKey {
  /** The first 16 hex digits of the key's SHA-256: names the key in an envelope, never reveals it. */
  id: string
  bytes: Uint8Array
}

export interface Keyring {
  /** Seals every write. */
  current: SecretKey
  /** Keys files may still be sealed with (a rotation not yet finished); only read with. */
  previous: SecretKey[]
}

const MARK = "harbormaster-sealed"

interface Envelope {
  [MARK]: 1
  key: string
  nonce: string
  data: string
}

/** The key made of 32 bytes, with its id. */
export function secretKey(bytes: Uint8Array): SecretKey {
  if (bytes.length !== 32) throw internal(`a secret key has 32 bytes, not ${bytes.length}`, "invalid_secret_key")
  return { id: new Bun.CryptoHasher("sha256").update(bytes).digest("hex").slice(0, 16), bytes }
}

/** A new random key. */
export const newSecretKey = () => secretKey(crypto.getRandomValues(new Uint8Array(32)))

let ring: Keyring | undefined

/** The keyring every seal and open of this process uses from now on. */
export function useKeys(keys: Keyring): void {
  ring = keys
}

function keys(): Keyring {
  ring ??= { current: newSecretKey(), previous: [] }
  return ring
}

// node:crypto holds megabytes of the runtime's pages: loaded by the first seal or open, not at start.
let nodeCrypto: typeof NodeCrypto | undefined
const cipher = () => (nodeCrypto ??= require("node:crypto") as typeof NodeCrypto)

/** `text` sealed with the current key: the envelope's text. */
export function seal(text: string): string {
  const { current } = keys()
  const nonce = crypto.getRandomValues(new Uint8Array(12))
  const c = cipher().createCipheriv("aes-256-gcm", current.bytes, nonce)
  const data = Buffer.concat([c.update(text, "utf8"), c.final(), c.getAuthTag()])
  const envelope: Envelope = {
    [MARK]: 1,
    key: current.id,
    nonce: Buffer.from(nonce).toString("base64"),
    data: data.toString("base64"),
  }
  return `${JSON.stringify(envelope)}\n`
}

/** Whether `text` is a sealed envelope. */
export const isSealed = (text: string): boolean => text.startsWith(`{"${MARK}"`)

/** The id of the key a sealed text names; undefined for plain text. */
export function sealedWith(text: string): string | undefined {
  return isSealed(text) ? (JSON.parse(text) as Envelope).key : undefined
}

/**
 * The plain text of `text`: opened with the key its envelope names when sealed, as it is otherwise.
 * A sealed text whose key is not in the keyring, or that was changed, is an error that names the key
 * (never the content).
 */
export function unseal(text: string, where = "a sealed file", ring: Keyring = keys()): string {
  if (!isSealed(text)) return text
  const envelope = JSON.parse(text) as Envelope
  const { current, previous } = ring
  const key = [current, ...previous].find((k) => k.id === envelope.key)
  if (!key)
    throw internal(
      `${where} is sealed with the secret key ${envelope.key}, which this service was not given (it has ${current.id}): start it with that key, or with it as SVC_SECRET_KEY_PREVIOUS during a rotation`,
      "secret_key_unknown",
    )
  const data = Buffer.from(envelope.data, "base64")
  try {
    const d = cipher().createDecipheriv("aes-256-gcm", key.bytes, Buffer.from(envelope.nonce, "base64"))
    d.setAuthTag(data.subarray(data.length - 16))
    return Buffer.concat([d.update(data.subarray(0, data.length - 16)), d.final()]).toString("utf8")
  } catch {
    throw internal(
      `${where} does not open with the secret key ${key.id}: it was changed or is damaged`,
      "sealed_damaged",
    )
  }
}

/** A file's text, opened when sealed; undefined when there is no such file. */
export function readOpened(path: string): string | undefined {
  let text: string
  try {
    text = readFileSync(path, "utf8")
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined
    throw err
  }
  return unseal(text, path)
}

/** The id of the key every write is sealed with now. */
export const currentKeyId = (): string => keys().current.id
