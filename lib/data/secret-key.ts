// The service's secret key, which seals the secrets the data directory keeps (lib/data/sealed.ts),
// taken from outside the data directory, so that a copy of it (or a backup) holds no secret in the
// clear. Where it comes from, first found first:
//   1. SVC_SECRET_KEY: the key itself (64 hex digits, or 32 bytes in base64);
//   2. a systemd credential: `secret-key` in $CREDENTIALS_DIRECTORY (LoadCredential=secret-key:PATH);
//   3. the key file SVC_SECRET_KEY_FILE (default: `<SVC_DATA>.key`, beside the data directory), made
//      on first start when none of these exists (0600, 64 hex digits). A key file readable by others
//      than its owner, or one inside the data directory, is refused.
// A rotation gives the new key as the key and the one before as a previous key (SVC_SECRET_KEY_PREVIOUS,
// the credential `secret-key-previous`, or the file `<key file>.previous`, which `secret-key rotate`
// leaves): files sealed with it are still read, and the start re-seals them with the new one.
import {
  closeSync,
  constants as C,
  fsyncSync,
  linkSync,
  openSync,
  readFileSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { invalid } from "../errors/errors.ts"
import { newSecretKey, secretKey, type Keyring, type SecretKey } from "./sealed.ts"

export interface KeySettings {
  dataDir: string
  /** SVC_SECRET_KEY. */
  key?: string
  /** SVC_SECRET_KEY_PREVIOUS: comma-separated. */
  previous?: string
  /** SVC_SECRET_KEY_FILE, or `<dataDir>.key`. */
  file: string
  /** $CREDENTIALS_DIRECTORY (systemd). */
  credentials?: string
}

export interface LoadedKeys extends Keyring {
  /** Where the current key came from, for the log: never the key. */
  source: string
  /** Whether the key file was made now (a first start). */
  made: boolean
}

/** The key file's default place: beside the data directory, never in it. */
export const defaultKeyFile = (dataDir: string) => `${resolve(dataDir).replace(/\/+$/, "")}.key`

/** A key as text: 64 hex digits, or 32 bytes in base64. */
export function parseKey(text: string, where: string): SecretKey {
  const t = text.trim()
  if (/^[0-9a-f]{64}$/i.test(t)) return secretKey(Buffer.from(t, "hex"))
  const bytes = /^[A-Za-z0-9+/]{43}=$/.test(t) ? Buffer.from(t, "base64") : undefined
  if (bytes?.length === 32) return secretKey(bytes)
  throw invalid(`${where} is not a secret key: 64 hex digits, or 32 bytes in base64`, "invalid_secret_key")
}

/** A key's text as a key file holds it. */
export const keyText = (key: SecretKey) => `${Buffer.from(key.bytes).toString("hex")}\n`

/** Reads a key file, refusing one others may read. Undefined when there is none. */
export function readKeyFile(path: string): SecretKey | undefined {
  const st = statSync(path, { throwIfNoEntry: false })
  if (!st) return undefined
  if (!st.isFile()) throw invalid(`the secret key file ${path} is not a file`, "invalid_secret_key")
  if (st.mode & 0o077)
    throw invalid(
      `the secret key file ${path} may be read by others (mode ${(st.mode & 0o777).toString(8)}): chmod 600 it`,
      "secret_key_exposed",
    )
  return parseKey(readFileSync(path, "utf8"), `the secret key file ${path}`)
}

/**
 * Writes `key` as a new key file (0600, fsync of the file and its folder); false when one is there
 * already (two starts at once: the other's stands).
 */
export function writeKeyFile(path: string, key: SecretKey): boolean {
  const tmp = `${path}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`
  const fd = openSync(tmp, C.O_WRONLY | C.O_CREAT | C.O_EXCL | C.O_NOFOLLOW, 0o600)
  try {
    writeSync(fd, keyText(key))
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
  try {
    linkSync(tmp, path)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false
    throw err
  } finally {
    unlinkSync(tmp)
  }
  const dir = openSync(dirname(path), C.O_RDONLY | C.O_DIRECTORY)
  try {
    fsyncSync(dir)
  } finally {
    closeSync(dir)
  }
  return true
}

const inside = (path: string, dir: string) => {
  const rel = relative(resolve(dir), resolve(path))
  return rel === "" || (!rel.startsWith("..") && !rel.startsWith("/"))
}

/** The keyring the settings give (see the module's comment); makes the key file on a first start. */
export function loadKeys(s: KeySettings): LoadedKeys {
  const credential = (name: string) => {
    if (!s.credentials) return undefined
    const path = join(s.credentials, name)
    return statSync(path, { throwIfNoEntry: false })?.isFile() ? readFileSync(path, "utf8") : undefined
  }
  const previous = [
    ...(s.previous ?? "")
      .split(",")
      .filter((t) => t.trim())
      .map((t) => parseKey(t, "SVC_SECRET_KEY_PREVIOUS")),
    ...[credential("secret-key-previous")].flatMap((t) =>
      t ? [parseKey(t, "the credential secret-key-previous")] : [],
    ),
  ]
  if (s.key) return { current: parseKey(s.key, "SVC_SECRET_KEY"), previous, source: "SVC_SECRET_KEY", made: false }
  const fromCredential = credential("secret-key")
  if (fromCredential)
    return {
      current: parseKey(fromCredential, "the credential secret-key"),
      previous,
      source: `the credential secret-key in ${s.credentials}`,
      made: false,
    }
  if (inside(s.file, s.dataDir))
    throw invalid(
      `the secret key file ${s.file} lies in the data directory ${s.dataDir}: a copy of the data directory would carry the key with the secrets; keep it elsewhere`,
      "secret_key_in_data",
    )
  const filed = readKeyFile(`${s.file}.previous`)
  if (filed) previous.push(filed)
  let current = readKeyFile(s.file)
  let made = false
  if (!current) {
    made = writeKeyFile(s.file, newSecretKey())
    current = readKeyFile(s.file)!
  }
  return { current, previous, source: `the key file ${s.file}`, made }
}
