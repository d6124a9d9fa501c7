// The secret store: `<data>/secrets/` (mode 0700), where the registries' passwords are kept
// (`registries.json`, sealed with the service's secret key, name → password), and where
// the docker CLI's configuration of one compose run is written for the length of that run
// (`docker/<pid>-<random>/`, lib/registries/runs.ts). Nothing else of the service reads them.
import { chmodSync, mkdirSync } from "node:fs"
import { join } from "node:path"
import { readJson, writeSealedJson } from "../data/datadir.ts"

export const SECRETS_DIR = "secrets"

/** `<data>/secrets`, made 0700 when missing. */
export function secretsDir(dataDir: string): string {
  const dir = join(dataDir, SECRETS_DIR)
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  chmodSync(dir, 0o700)
  return dir
}

/** Each kept registry's password, by the registry's name. */
export class RegistrySecrets {
  private readonly file: string
  constructor(private readonly dataDir: string) {
    this.file = join(dataDir, SECRETS_DIR, "registries.json")
  }

  all(): Promise<Record<string, string>> {
    return readJson<Record<string, string>>(this.file, {})
  }

  async get(name: string): Promise<string | undefined> {
    return (await this.all())[name]
  }

  /** Sets (a string) or removes (null) one registry's password. */
  async set(name: string, password: string | null): Promise<void> {
    const { [name]: _, ...rest } = await this.all()
    secretsDir(this.dataDir)
    writeSealedJson(this.file, password === null ? rest : { ...rest, [name]: password })
  }
}
