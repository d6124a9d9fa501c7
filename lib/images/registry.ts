// Registry update checks: the digest a registry currently serves for a tag (HEAD on the manifest,
// anonymous bearer token when the registry asks for one), compared with the local image's RepoDigests.
import { HttpError } from "../http/http-error.ts"

export interface ImageRef {
  /** Host (and port) of the registry; Docker Hub is `docker.io`. */
  registry: string
  repository: string
  tag: string
  digest?: string
}

const DOCKER_HUB = "docker.io"
const DOCKER_HUB_API = "registry-1.docker.io"

const COMPONENT = "[a-z0-9]+(?:(?:\\.|_|__|-+)[a-z0-9]+)*"
const REPOSITORY = new RegExp(`^${COMPONENT}(?:/${COMPONENT})*$`)

/** Parses an image reference as the engine does: `nginx` is `docker.io/library/nginx:latest`. */
export function parseRef(ref: string): ImageRef {
  if (/^(sha256:)?[a-f0-9]{64}$/.test(ref))
    throw new HttpError(
      400,
      "invalid_reference",
      `${ref.slice(0, 19)}… is an image id, not a reference a registry knows`,
    )
  const at = ref.indexOf("@")
  const digest = at >= 0 ? ref.slice(at + 1) : undefined
  let name = at >= 0 ? ref.slice(0, at) : ref
  let tag = "latest"
  const colon = name.lastIndexOf(":")
  if (colon > name.lastIndexOf("/")) {
    tag = name.slice(colon + 1)
    name = name.slice(0, colon)
  }
  const slash = name.indexOf("/")
  const first = slash >= 0 ? name.slice(0, slash) : ""
  const hasHost = first.includes(".") || first.includes(":") || first === "localhost"
  const registry = hasHost ? first : DOCKER_HUB
  let repository = hasHost ? name.slice(slash + 1) : name
  if (registry === DOCKER_HUB && !repository.includes("/")) repository = `library/${repository}`
  if (
    !REPOSITORY.test(repository) ||
    !/^[\w][\w.-]{0,127}$/.test(tag) ||
    (digest && !/^sha256:[a-f0-9]{64}$/.test(digest))
  )
    throw new HttpError(400, "invalid_reference", `"${ref.slice(0, 200)}" is not a valid image reference`)
  return { registry, repository, tag, ...(digest ? { digest } : {}) }
}

/** The name the engine keeps in RepoDigests for this repository (`nginx` for Docker Hub's library). */
export function familiarName({ registry, repository }: ImageRef): string {
  if (registry !== DOCKER_HUB) return `${registry}/${repository}`
  return repository.startsWith("library/") ? repository.slice("library/".length) : repository
}

export const MANIFEST_TYPES = [
  "application/vnd.oci.image.index.v1+json",
  "application/vnd.docker.distribution.manifest.list.v2+json",
  "application/vnd.oci.image.manifest.v1+json",
  "application/vnd.docker.distribution.manifest.v2+json",
]

export interface RegistryOptions {
  /** Registries spoken to over plain http besides loopback ones. */
  insecure: string[]
  fetch?: typeof fetch
  timeoutMs?: number
}

const LOOPBACK = /^(localhost|127(?:\.\d+){3}|\[::1\])(?::\d+)?$/

function baseUrl(registry: string, insecure: string[]): string {
  const host = registry === DOCKER_HUB ? DOCKER_HUB_API : registry
  return `${LOOPBACK.test(host) || insecure.includes(host) ? "http" : "https"}://${host}`
}

/** Parses `Bearer realm="...",service="...",scope="..."`. */
export function parseChallenge(header: string): Record<string, string> | undefined {
  const m = /^Bearer\s+(.*)$/i.exec(header.trim())
  if (!m) return undefined
  return Object.fromEntries([...m[1]!.matchAll(/(\w+)="([^"]*)"/g)].map((p) => [p[1]!.toLowerCase(), p[2]!]))
}

const unreachable = (registry: string, why: string) =>
  new HttpError(502, "registry_error", `registry ${registry}: ${why}`)

/** The digest the registry serves now for the reference's tag. */
export async function remoteDigest(ref: ImageRef, o: RegistryOptions): Promise<string> {
  const doFetch = o.fetch ?? fetch
  const url = `${baseUrl(ref.registry, o.insecure)}/v2/${ref.repository}/manifests/${ref.tag}`
  const request = async (method: string, token?: string) => {
    try {
      return await doFetch(url, {
        method,
        headers: { accept: MANIFEST_TYPES.join(", "), ...(token ? { authorization: `Bearer ${token}` } : {}) },
        signal: AbortSignal.timeout(o.timeoutMs ?? 15_000),
      })
    } catch (err) {
      throw unreachable(ref.registry, err instanceof Error ? err.message : String(err))
    }
  }
  let res = await request("HEAD")
  let token: string | undefined
  if (res.status === 401) {
    const challenge = parseChallenge(res.headers.get("www-authenticate") ?? "")
    if (!challenge?.realm) throw unreachable(ref.registry, "authentication required, and no anonymous token offered")
    const tokenUrl = new URL(challenge.realm)
    if (challenge.service) tokenUrl.searchParams.set("service", challenge.service)
    tokenUrl.searchParams.set("scope", challenge.scope ?? `repository:${ref.repository}:pull`)
    const answer = await doFetch(tokenUrl, { signal: AbortSignal.timeout(o.timeoutMs ?? 15_000) }).catch((err) => {
      throw unreachable(ref.registry, `token service: ${err instanceof Error ? err.message : err}`)
    })
    if (!answer.ok) throw unreachable(ref.registry, `anonymous token refused (${answer.status})`)
    const body = (await answer.json()) as { token?: string; access_token?: string }
    token = body.token ?? body.access_token
    res = await request("HEAD", token)
  }
  if (res.status === 404)
    throw new HttpError(404, "not_found", `registry ${ref.registry} has no ${ref.repository}:${ref.tag}`)
  if (!res.ok) throw unreachable(ref.registry, `manifest request answered ${res.status}`)
  const digest = res.headers.get("docker-content-digest")
  if (digest) return digest
  // A registry that leaves the header out of HEAD: the digest is the sha256 of the manifest as served.
  const body = await (await request("GET", token)).arrayBuffer()
  return `sha256:${new Bun.CryptoHasher("sha256").update(body).digest("hex")}`
}

/** The digests of `ref`'s repository among an image's RepoDigests (`name@sha256:...`). */
export function localDigests(ref: ImageRef, repoDigests: string[]): string[] {
  const name = familiarName(ref)
  return repoDigests.flatMap((d) => {
    const at = d.lastIndexOf("@")
    if (at < 0) return []
    const repo = d.slice(0, at)
    return familiarName(parseRef(repo)) === name ? [d.slice(at + 1)] : []
  })
}
