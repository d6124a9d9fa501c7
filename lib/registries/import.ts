// Importing the credentials the host's docker CLI keeps (`config.json` in the service's DOCKER_CONFIG,
// else ~/.docker), once, when an admin asks: each `auths` entry with a user name and password becomes
// a kept registry (origin `docker_config`). What the file cannot give is skipped with the reason: an
// entry kept by a credential helper (`credsStore`, `credHelpers`), an identity token, an address
// already kept, an address that is not a registry's.
import { stat } from "node:fs/promises"
import { isDomainError, invalid, notFound, tooLarge } from "../errors/errors.ts"
import { maskUrl } from "../credentials/urls.ts"
import { addressOf, parseAddress } from "./address.ts"
import { NAME, type Registries } from "./registries.ts"

export interface ImportResult {
  /** The path read. */
  file: string
  imported: { name: string; address: string; username: string }[]
  skipped: { address: string; reason: string }[]
}

interface AuthEntry {
  auth?: string
  username?: string
  password?: string
  identitytoken?: string
}

interface DockerConfig {
  auths?: Record<string, AuthEntry>
  credsStore?: string
  credHelpers?: Record<string, string>
}

const MAX_BYTES = 1024 * 1024

async function readConfig(file: string): Promise<DockerConfig> {
  const st = await stat(file).catch(() => undefined)
  if (!st?.isFile()) throw notFound(`there is no docker CLI configuration at ${file}`, "docker_config_not_found")
  if (st.size > MAX_BYTES) throw tooLarge(`${file} is larger than 1 MiB`, "docker_config_too_large")
  try {
    const doc = JSON.parse(await Bun.file(file).text())
    if (!doc || typeof doc !== "object" || Array.isArray(doc)) throw new Error("not an object")
    return doc as DockerConfig
  } catch (err) {
    throw invalid(
      `${file} is not the docker CLI's JSON configuration: ${(err as Error).message}`,
      "docker_config_invalid",
    )
  }
}

/** The user name and password of an `auths` entry (its `auth` is base64 of `user:password`). */
function credentials(e: AuthEntry): { username: string; password: string } | undefined {
  if (typeof e.username === "string" && typeof e.password === "string" && e.username)
    return { username: e.username, password: e.password }
  if (typeof e.auth !== "string" || !e.auth) return undefined
  const text = Buffer.from(e.auth, "base64").toString("utf8")
  const colon = text.indexOf(":")
  return colon > 0 ? { username: text.slice(0, colon), password: text.slice(colon + 1) } : undefined
}

/** A registry name made of its address (`ghcr.io/my-org` → `ghcr.io-my-org`), not one of `taken`. */
function nameFor(address: string, taken: Set<string>): string {
  const base =
    address
      .toLowerCase()
      .replace(/[^a-z0-9_.-]+/g, "-")
      .replace(/^[^a-z0-9]+/, "")
      .slice(0, 56) || "registry"
  let name = base
  for (let i = 2; taken.has(name) || !NAME.test(name); i++) name = `${base}-${i}`
  return name
}

export async function importDockerConfig(registries: Registries): Promise<ImportResult> {
  const file = registries.dockerConfigFile
  const config = await readConfig(file)
  const result: ImportResult = { file, imported: [], skipped: [] }
  const kept = await registries.list()
  const taken = new Set(kept.map((r) => r.name))
  const helpers = config.credHelpers && typeof config.credHelpers === "object" ? config.credHelpers : {}
  for (const [key, helper] of Object.entries(helpers))
    result.skipped.push({ address: key, reason: `kept by the credential helper docker-credential-${helper}` })
  for (const [key, entry] of Object.entries(config.auths ?? {})) {
    if (Object.hasOwn(helpers, key)) continue
    let address: string
    try {
      address = addressOf(parseAddress(key))
    } catch (err) {
      if (!isDomainError(err)) throw err
      result.skipped.push({ address: maskUrl(key), reason: err.message })
      continue
    }
    const same = kept.find((r) => r.address === address)
    const creds = entry && typeof entry === "object" ? credentials(entry) : undefined
    const reason = same
      ? `kept already, as ${same.name}`
      : entry?.identitytoken
        ? "an identity token (a login through a browser): add the registry with a password or access token"
        : !creds
          ? config.credsStore
            ? `kept by the credential helper docker-credential-${config.credsStore}`
            : "no user name and password in the entry"
          : undefined
    if (reason || !creds) {
      result.skipped.push({ address, reason: reason ?? "no user name and password in the entry" })
      continue
    }
    const name = nameFor(address, taken)
    try {
      await registries.add({ name, address, ...creds }, "docker_config")
    } catch (err) {
      if (!isDomainError(err)) throw err
      result.skipped.push({ address, reason: err.message })
      continue
    }
    taken.add(name)
    result.imported.push({ name, address, username: creds.username })
  }
  return result
}
