// The secrets the data directory keeps, sealed with the service's secret key (lib/data/sealed.ts,
// lib/data/secret-key.ts): which files hold them, and what the start does with them. The start loads
// the key (making the key file on a first start), and seals every such file that is not sealed with
// it: a plain one an earlier release wrote, one sealed with a previous key during a rotation. The
// plain env files an earlier release kept beside a stack's records are removed (compose's env file is
// rendered into its room when it runs).
import { existsSync, linkSync } from "node:fs"
import { resealAll, writeFileAtomic } from "../data/datadir.ts"
import { keyText, loadKeys, readKeyFile, type KeySettings } from "../data/secret-key.ts"
import { newSecretKey, useKeys } from "../data/sealed.ts"

/** The files that hold secrets, relative to the data directory (`*`: any one name). */
export const SEALED_FILES = [
  "cluster.json",
  "backups/repos.json",
  "alerts/channels.json",
  "secrets/registries.json",
  "secrets/totp.json",
  "secrets/passkeys.json",
  "records/*/env.json",
  "records/*/run.json",
  "records/*/git.json",
  "records/*/versions/*",
] as const

/** Plain copies of secrets an earlier release kept. */
export const PLAIN_COPIES = ["records/*/.env"] as const

/** Loads the key, makes it the process's, and seals what is not sealed with it; what happened, for the log (never a key). */
export function openSecrets(settings: KeySettings): string {
  const keys = loadKeys(settings)
  useKeys(keys)
  const { sealed, removed } = resealAll(settings.dataDir, SEALED_FILES, PLAIN_COPIES)
  const made = keys.made ? " (made now: keep a copy of it apart from the data directory's backups)" : ""
  const resealed = sealed || removed ? `; ${sealed} file(s) sealed with it, ${removed} plain env file(s) removed` : ""
  return `secrets sealed with the key ${keys.current.id} from ${keys.source}${made}${resealed}`
}

export const SECRET_KEY_USAGE = `usage: secret-key new       print a new random key (for SVC_SECRET_KEY or a systemd credential)
       secret-key rotate    with a key file: keep it as <key file>.previous and make a new key file;
                            the next start seals every file with the new key`

/** `server secret-key new|rotate` (see SECRET_KEY_USAGE); the exit status. */
export function secretKeyCommand(args: string[], settings: KeySettings, out: (line: string) => void): number {
  if (args[0] === "new" && args.length === 1) {
    out(keyText(newSecretKey()).trim())
    return 0
  }
  if (args[0] !== "rotate" || args.length !== 1) {
    out(SECRET_KEY_USAGE)
    return 2
  }
  if (settings.key || settings.credentials) {
    out(
      "the key comes from SVC_SECRET_KEY or a systemd credential: make a new one with `secret-key new`, give it as the key and the one before as SVC_SECRET_KEY_PREVIOUS (or the credential secret-key-previous), and restart",
    )
    return 2
  }
  const previous = `${settings.file}.previous`
  if (existsSync(previous)) {
    out(
      `${previous} is there: a rotation is not finished; start the service once (it seals every file with the current key), keep ${previous} as long as a state backup sealed with it is kept, then remove it and rotate again`,
    )
    return 1
  }
  const old = readKeyFile(settings.file)
  if (!old) {
    out(`there is no key file ${settings.file}: the service makes one on its first start`)
    return 1
  }
  // The old key is kept first (link: the key file never goes missing), then the new one replaces it.
  linkSync(settings.file, previous)
  const fresh = newSecretKey()
  writeFileAtomic(settings.file, keyText(fresh), 0o600)
  out(
    `the key ${old.id} is now ${previous}, the new key ${fresh.id} is ${settings.file}: restart the service, which seals every file with the new key; keep ${previous} as long as a state backup sealed with it is kept`,
  )
  return 0
}
