// Image references as the engine reads them: `nginx` is `docker.io/library/nginx:latest`, the first
// path component is a registry host only when it has a dot, a port or is `localhost`. Used wherever a
// reference meets a registry: update checks, the credentials that go with a pull, errors that name
// the registry, the digests the engine keeps (RepoDigests).
import { invalid } from "../errors/errors.ts"

export interface ImageRef {
  /** Host (and port) of the registry; Docker Hub is `docker.io`. */
  registry: string
  repository: string
  tag: string
  digest?: string
}

export const DOCKER_HUB = "docker.io"
/** The host Docker Hub's registry API answers on. */
export const DOCKER_HUB_API = "registry-1.docker.io"
/** The names Docker Hub goes by in references and in the docker CLI's config. */
const HUB_ALIASES = new Set([DOCKER_HUB, "index.docker.io", DOCKER_HUB_API, "registry.hub.docker.com"])

const COMPONENT = "[a-z0-9]+(?:(?:\\.|_|__|-+)[a-z0-9]+)*"
const REPOSITORY = new RegExp(`^${COMPONENT}(?:/${COMPONENT})*$`)

/** A registry host as references name it: Docker Hub's aliases are `docker.io`, the rest lower-cased. */
export const normalHost = (host: string): string => {
  const h = host.toLowerCase()
  return HUB_ALIASES.has(h) ? DOCKER_HUB : h
}

/** Parses an image reference as the engine does: `nginx` is `docker.io/library/nginx:latest`. */
export function parseRef(ref: string): ImageRef {
  if (/^(sha256:)?[a-f0-9]{64}$/.test(ref))
    throw invalid(`${ref.slice(0, 19)}… is an image id, not a reference a registry knows`, "invalid_reference")
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
  const registry = hasHost ? normalHost(first) : DOCKER_HUB
  let repository = hasHost ? name.slice(slash + 1) : name
  if (registry === DOCKER_HUB && !repository.includes("/")) repository = `library/${repository}`
  if (
    !REPOSITORY.test(repository) ||
    !/^[\w][\w.-]{0,127}$/.test(tag) ||
    (digest && !/^sha256:[a-f0-9]{64}$/.test(digest)) ||
    !/^[a-z0-9.-]+(:\d{1,5})?$|^\[[0-9a-f:]+\](:\d{1,5})?$/.test(registry)
  )
    throw invalid(`"${ref.slice(0, 200)}" is not a valid image reference`, "invalid_reference")
  return { registry, repository, tag, ...(digest ? { digest } : {}) }
}

/** The registry a reference names, or undefined when it is no reference (an image id, a typo). */
export function registryOf(ref: string): string | undefined {
  try {
    return parseRef(ref).registry
  } catch {
    return undefined
  }
}

/** The name the engine keeps in RepoDigests for this repository (`nginx` for Docker Hub's library). */
export function familiarName({ registry, repository }: ImageRef): string {
  if (registry !== DOCKER_HUB) return `${registry}/${repository}`
  return repository.startsWith("library/") ? repository.slice("library/".length) : repository
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
