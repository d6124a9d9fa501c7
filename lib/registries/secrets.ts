// A registry's password in the secret store (lib/data/secrets.ts): `registries.json` (sealed with the
// service's secret key, name → password); the docker CLI's configuration of one compose run is
// written there too for the length of that run (`docker/<pid>-<random>/`, lib/registries/runs.ts).
import { join } from "node:path"
import { readJson, writeSealedJson } from "../data/datadir.ts"
import { SECRETS_DIR, secretsDir } from "../data/secrets.ts"

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
