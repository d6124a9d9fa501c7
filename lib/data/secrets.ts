// The secret store: `<data>/secrets/` (mode 0700), the one place under the data directory where
// secrets lie in the clear, each kind in a file of its own (0600): a registry's password
// (lib/registries), a user's TOTP secret and passkeys (lib/auth). Nothing else of the service reads them.
import { chmodSync, mkdirSync } from "node:fs"
import { join } from "node:path"

export const SECRETS_DIR = "secrets"

/** `<data>/secrets`, made 0700 when missing. */
export function secretsDir(dataDir: string): string {
  const dir = join(dataDir, SECRETS_DIR)
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  chmodSync(dir, 0o700)
  return dir
}
