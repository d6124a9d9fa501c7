// The registries this server keeps credentials for, in <data>/registries.json (no secret in it) with
// each one's password in the secret store (./secrets.ts). What they are used for: the credentials of
// a pull or push through the engine (`engineAuth`, X-Registry-Auth), the DOCKER_CONFIG of a compose
// or `docker stack` run (`runConfig`), the service's own requests to a registry (`digest` for update
// checks, `test`, Docker Hub's quota), and the credentials a copy gives a node (`forImages`, then
// `receive` there). An image's registry is the kept one whose host is the reference's and whose path
// prefix is the longest that holds its repository; an image of no kept registry goes anonymous.
import { X509Certificate } from "node:crypto"
import { join } from "node:path"
import { readJson, writeJson } from "../data/datadir.ts"
import type { Engine } from "../engine/client.ts"
import { DOCKER_HUB, type ImageRef } from "../engine/reference.ts"
import { conflict, invalid, isDomainError, notFound } from "../errors/errors.ts"
import { keptFor } from "../credentials/urls.ts"
import { addressOf, covers, parseAddress } from "./address.ts"
import { hubQuota, login, remoteDigest, type ClientOptions, type Endpoint, type Quota } from "./client.ts"
import { openRunConfig, type Auths, type RunConfig } from "./runs.ts"
import { RegistrySecrets } from "./secrets.ts"

export type Origin = "api" | "docker_config" | "control_plane"

/** What a test of a registry said, kept with it. */
export interface TestResult {
  ok: boolean
  time: string
  /** How the registry asked to be authenticated (null when it could not be told). */
  auth: "none" | "basic" | "bearer" | null
  /** The service's error code when it failed (registry_unauthorized, registry_unreachable, registry_tls...). */
  code: string | null
  message: string
}

/** A kept registry as written to registries.json: everything but its password. */
export interface Registry {
  name: string
  host: string
  prefix: string
  username: string | null
  /** PEM certificates of a private CA the service trusts for this registry. */
  ca: string | null
  insecure: boolean
  origin: Origin
  created: string
  updated: string
  last_test: TestResult | null
}

/** A registry as the API shows it: no password, whether one is kept, and the last pull quota it reported. */
export interface RegistryView extends Registry {
  address: string
  has_password: boolean
  pull_quota: Quota | null
}

export interface RegistryInput {
  name: string
  address: string
  username?: string | null
  /** Left out on an edit: the kept one stays (unless the host changes); null: none. */
  password?: string | null
  ca?: string | null
  insecure?: boolean
}

/** A registry with its password, as a copy sends it to a node (never shown anywhere). */
export interface RegistryCredentials {
  name: string
  address: string
  username: string | null
  password: string | null
  ca: string | null
  insecure: boolean
}

export interface RegistriesOptions extends ClientOptions {
  /** Registries (host:port) spoken to over plain http without being kept (SVC_INSECURE_REGISTRIES). */
  insecure?: string[]
  /** The service's own DOCKER_CONFIG folder (else ~/.docker): its plugins are linked into each run's, its config.json is what an import reads. */
  dockerConfig?: string
}

export const NAME = /^[a-z0-9][a-z0-9_.-]{0,62}$/

const LOOPBACK = /^(localhost|127(?:\.\d+){3}|\[::1\])(?::\d+)?$/

/** Where a registry's credential goes: its scheme and host. */
const originUrl = (r: { host: string; insecure: boolean }) => `${r.insecure ? "http" : "https"}://${r.host}`

/** The key of the docker CLI's config for a registry host. */
const authKey = (host: string) => (host === DOCKER_HUB ? "https://index.docker.io/v1/" : host)

/** X-Registry-Auth: the engine reads it as base64url of the JSON, with padding. */
export const xRegistryAuth = (json: Record<string, string>) =>
  Buffer.from(JSON.stringify(json)).toString("base64").replaceAll("+", "-").replaceAll("/", "_")

/** A PEM bundle of certificates, each parsed; a key or anything else is refused. */
function checkCa(pem: string): string {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []
  const rest = pem.replace(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g, "").trim()
  if (!blocks.length || rest)
    throw invalid("ca must be PEM certificates (-----BEGIN CERTIFICATE-----) and nothing else", "invalid_ca")
  for (const b of blocks)
    try {
      new X509Certificate(b)
    } catch (err) {
      throw invalid(`ca holds a certificate that does not parse: ${(err as Error).message}`, "invalid_ca")
    }
  return `${blocks.join("\n")}\n`
}

export class Registries {
  private readonly file: string
  private readonly secrets: RegistrySecrets
  private readonly quotas = new Map<string, Quota>()
  private writing: Promise<unknown> = Promise.resolve()
  private readonly now: () => number

  constructor(
    private readonly dataDir: string,
    private readonly parts: RegistriesOptions = {},
  ) {
    this.file = join(dataDir, "registries.json")
    this.secrets = new RegistrySecrets(dataDir)
    this.now = parts.now ?? Date.now
  }

  /** The host's docker CLI configuration an import reads. */
  get dockerConfigFile(): string {
    return join(this.parts.dockerConfig ?? "", "config.json")
  }

  private client(): ClientOptions {
    return { ...this.parts, onQuota: (host, q) => this.quotas.set(host, q) }
  }

  private all(): Promise<Registry[]> {
    return readJson<Registry[]>(this.file, [])
  }

  /** Runs `change` on the list after every earlier change, and writes what it returns. */
  private change<T>(fn: (all: Registry[]) => Promise<{ all: Registry[]; out: T }>): Promise<T> {
    const next = this.writing
      .catch(() => {})
      .then(async () => {
        const { all, out } = await fn(await this.all())
        writeJson(this.file, all)
        return out
      })
    this.writing = next
    return next
  }

  private async view(r: Registry, passwords?: Record<string, string>): Promise<RegistryView> {
    const has = (passwords ?? (await this.secrets.all()))[r.name] !== undefined
    return { ...r, address: addressOf(r), has_password: has, pull_quota: this.quotas.get(r.host) ?? null }
  }

  async list(): Promise<RegistryView[]> {
    const passwords = await this.secrets.all()
    return Promise.all((await this.all()).map((r) => this.view(r, passwords)))
  }

  private async find(name: string): Promise<Registry> {
    const r = (await this.all()).find((x) => x.name === name)
    if (!r) throw notFound(`no registry named ${name}`, "registry_not_found")
    return r
  }

  async get(name: string): Promise<RegistryView> {
    return this.view(await this.find(name))
  }

  /** The fields of an input checked: address, credentials, CA, insecure. */
  private checked(input: Omit<RegistryInput, "name">, password: string | null) {
    const { host, prefix, scheme } = parseAddress(input.address)
    const insecure = input.insecure ?? scheme === "http"
    if (scheme === "http" && !insecure)
      throw invalid("http:// is plain http: say insecure: true to keep a registry without TLS", "insecure_not_said")
    if (scheme === "https" && insecure)
      throw invalid("https:// and insecure: true disagree: an insecure registry speaks plain http", "invalid_address")
    const username = input.username?.trim() || null
    if (password !== null && !username) throw invalid("a password goes with a user name", "username_required")
    if (username && password === null)
      throw invalid(`user ${username} needs a password or access token`, "password_required")
    if (username && /[:\s]/.test(username)) throw invalid("a user name holds no colon or space", "invalid_username")
    const ca = input.ca?.trim() ? checkCa(input.ca) : null
    if (ca && insecure)
      throw invalid("a CA certificate is for TLS, and an insecure registry speaks plain http", "invalid_ca")
    return { host, prefix, username, ca, insecure }
  }

  async add(input: RegistryInput, origin: Origin = "api"): Promise<RegistryView> {
    if (!NAME.test(input.name))
      throw invalid("a registry's name is lower-case letters, digits, . _ - (up to 63)", "invalid_name")
    const password = input.password ?? null
    const fields = this.checked(input, password)
    const time = new Date(this.now()).toISOString()
    const r: Registry = { name: input.name, ...fields, origin, created: time, updated: time, last_test: null }
    await this.change(async (all) => {
      if (all.some((x) => x.name === r.name)) throw conflict(`a registry named ${r.name} exists`, "registry_exists")
      const same = all.find((x) => x.host === r.host && x.prefix === r.prefix)
      if (same) throw conflict(`${addressOf(r)} is kept already, as ${same.name}`, "registry_exists")
      await this.secrets.set(r.name, password)
      return { all: [...all, r], out: undefined }
    })
    return this.view(r)
  }

  /**
   * Replaces a registry's address, user name, CA and insecure flag. A password left out stays, unless
   * the host or the scheme changed: a credential is never sent where it was not given for, nor over
   * plain http (400 then, unless the user name goes too).
   */
  async edit(name: string, input: Omit<RegistryInput, "name">): Promise<RegistryView> {
    const r = await this.change(async (all) => {
      const old = all.find((x) => x.name === name)
      if (!old) throw notFound(`no registry named ${name}`, "registry_not_found")
      const kept = await this.secrets.get(name)
      const { host, scheme } = parseAddress(input.address)
      const insecure = input.insecure ?? scheme === "http"
      // The password stays only where it was given for: the same host, over the same scheme.
      const password =
        keptFor(
          { url: originUrl(old), credential: kept },
          { url: originUrl({ host, insecure }), given: input.password === null ? "" : input.password },
        ) ?? null
      if (password === null && kept !== undefined && input.password === undefined && input.username !== null)
        throw invalid(
          `registry ${name} moves from ${originUrl(old)} to ${originUrl({ host, insecure })}: its password is not sent there; give it again (or null for none)`,
          "password_required",
        )
      const fields = this.checked(input, password)
      const same = all.find((x) => x.name !== name && x.host === fields.host && x.prefix === fields.prefix)
      if (same) throw conflict(`${addressOf(fields)} is kept already, as ${same.name}`, "registry_exists")
      const next: Registry = {
        ...old,
        ...fields,
        updated: new Date(this.now()).toISOString(),
        last_test: null,
      }
      await this.secrets.set(name, password)
      return { all: all.map((x) => (x.name === name ? next : x)), out: next }
    })
    return this.view(r)
  }

  async remove(name: string): Promise<void> {
    await this.change(async (all) => {
      if (!all.some((x) => x.name === name)) throw notFound(`no registry named ${name}`, "registry_not_found")
      await this.secrets.set(name, null)
      return { all: all.filter((x) => x.name !== name), out: undefined }
    })
  }

  /** The kept registry that holds `ref`'s credentials (the longest prefix of its host), if any. */
  private async match(ref: string): Promise<Registry | undefined> {
    const holds = (r: Registry) => {
      try {
        return covers(r, ref)
      } catch {
        return false
      }
    }
    return (await this.all()).filter(holds).sort((a, b) => b.prefix.length - a.prefix.length)[0]
  }

  private async endpoint(r: Registry): Promise<Endpoint> {
    const password = (await this.secrets.get(r.name)) ?? null
    return { host: r.host, insecure: r.insecure, ca: r.ca, username: r.username, password }
  }

  /** How the service reaches a registry for `ref`: its kept one, else anonymously (http for loopback and SVC_INSECURE_REGISTRIES). */
  private async endpointFor(ref: ImageRef): Promise<Endpoint> {
    const kept = await this.match(`${ref.registry}/${ref.repository}`)
    if (kept) return this.endpoint(kept)
    return {
      host: ref.registry,
      insecure: LOOPBACK.test(ref.registry) || (this.parts.insecure ?? []).includes(ref.registry),
    }
  }

  /** The name of the kept registry holding `ref`'s credentials, null for none. */
  async nameFor(ref: string): Promise<string | null> {
    return (await this.match(ref))?.name ?? null
  }

  /** The X-Registry-Auth of a pull or push of `ref` (undefined: anonymous). */
  async engineAuth(ref: string): Promise<string | undefined> {
    const r = await this.match(ref)
    if (!r?.username) return undefined
    const password = (await this.secrets.get(r.name)) ?? ""
    return xRegistryAuth({ username: r.username, password, serveraddress: r.host })
  }

  /** Has the engine resolve each of `images` whose registry is kept, with its credentials: a refusal is thrown, naming the registry. */
  async resolvable(engine: Pick<Engine, "distributionInspect">, images: string[]): Promise<void> {
    for (const image of [...new Set(images)]) if (await this.match(image)) await engine.distributionInspect(image)
  }

  /** The digest a registry serves now for a tag, asked with the kept credentials. */
  async digest(ref: ImageRef): Promise<string> {
    return remoteDigest(await this.endpointFor(ref), ref, this.client())
  }

  /** Logs in to a kept registry and keeps what it answered (`last_test`); a refusal is a result, not an error. */
  async test(name: string): Promise<TestResult & { pull_quota: Quota | null }> {
    const r = await this.find(name)
    const endpoint = await this.endpoint(r)
    const time = new Date(this.now()).toISOString()
    let result: TestResult
    try {
      const said = await login(endpoint, this.client())
      if (r.host === DOCKER_HUB) await hubQuota(endpoint, this.client())
      result = { ok: true, time, auth: said.auth, code: null, message: said.message }
    } catch (err) {
      if (!isDomainError(err)) throw err
      result = { ok: false, time, auth: null, code: err.code, message: err.message }
    }
    await this.change(async (all) => ({
      all: all.map((x) => (x.name === name ? { ...x, last_test: result } : x)),
      out: undefined,
    }))
    return { ...result, pull_quota: this.quotas.get(r.host) ?? null }
  }

  /** Docker Hub's pull quota now, for its kept credentials or anonymous. */
  async hubQuota(): Promise<{ registry: string | null; quota: Quota | null }> {
    const kept = await this.match("docker.io/library/busybox")
    const quota = await hubQuota(
      kept ? await this.endpoint(kept) : { host: DOCKER_HUB, insecure: false },
      this.client(),
    )
    return { registry: kept?.name ?? null, quota }
  }

  /** The last pull quota a registry host reported, if any. */
  quota(host: string): Quota | null {
    return this.quotas.get(host) ?? null
  }

  /**
   * A DOCKER_CONFIG for one run whose images are `images`: the credentials of their kept registries,
   * one per host (the docker CLI keys them by host alone: two registries of one host with different
   * credentials for one run's images is a 409).
   */
  async runConfig(images: string[]): Promise<RunConfig> {
    const auths: Auths = {}
    const chosen = new Map<string, Registry>()
    for (const image of [...new Set(images)]) {
      const r = await this.match(image)
      if (!r?.username) continue
      const other = chosen.get(r.host)
      if (other && other.name !== r.name)
        throw conflict(
          `images of one stack need two registries of ${r.host} (${other.name} and ${r.name}) with different credentials, and compose keeps one per host: give them one registry with credentials for both`,
          "registry_credentials_clash",
        )
      chosen.set(r.host, r)
      const password = (await this.secrets.get(r.name)) ?? ""
      auths[authKey(r.host)] = { auth: Buffer.from(`${r.username}:${password}`).toString("base64") }
    }
    return openRunConfig(this.dataDir, auths, this.parts.dockerConfig && join(this.parts.dockerConfig, "cli-plugins"))
  }

  /** The kept registries `images` need, with their passwords: what a copy gives the node that will pull them. */
  async forImages(images: string[]): Promise<RegistryCredentials[]> {
    const found = new Map<string, Registry>()
    for (const image of images) {
      const r = await this.match(image)
      if (r) found.set(r.name, r)
    }
    return Promise.all(
      [...found.values()].map(async (r) => ({
        name: r.name,
        address: addressOf(r),
        username: r.username,
        password: (await this.secrets.get(r.name)) ?? null,
        ca: r.ca,
        insecure: r.insecure,
      })),
    )
  }

  /**
   * Keeps the registries a control plane sent (for a copy or a move to this server): one this
   * server's own admin keeps at the same address stays as it is; one the control plane sent before is
   * replaced. Answers the names stored and those kept as they were.
   */
  async receive(sent: RegistryCredentials[]): Promise<{ stored: string[]; kept: string[] }> {
    const stored: string[] = []
    const kept: string[] = []
    for (const s of sent) {
      const { host, prefix } = parseAddress(s.address)
      const all = await this.all()
      const there = all.find((x) => x.host === host && x.prefix === prefix)
      if (there && there.origin !== "control_plane") {
        kept.push(there.name)
        continue
      }
      if (there) await this.remove(there.name)
      let name = s.name
      for (let i = 2; all.some((x) => x.name === name && x !== there); i++) name = `${s.name}-${i}`
      await this.add({ ...s, name }, "control_plane")
      stored.push(name)
    }
    return { stored, kept }
  }
}
