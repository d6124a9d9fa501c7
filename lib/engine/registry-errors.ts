// A registry's refusal as the engine and the tools driving it word it (a pull's error from the
// engine, a line of compose's or the docker CLI's output), turned into an error that names the
// registry and says what to do: wrong or missing credentials, a pull limit reached, a certificate the
// engine does not trust, a registry that does not answer, a tag it does not have. The wording was read
// off the engines the service supports (Docker 20.10's classic image store and the containerd store
// of Docker 26), and off registries answering 401, 429, an unknown CA and a closed port.
import { DomainError, notFound, rateLimited, upstream } from "../errors/errors.ts"
import { DOCKER_HUB, DOCKER_HUB_API, parseRef } from "./reference.ts"

interface Pattern {
  test: RegExp
  make: (registry: string, said: string) => DomainError
  /** Taken from a line only when the line names the image or its registry (its words say too little alone). */
  named?: boolean
}

const PATTERNS: Pattern[] = [
  {
    test: /toomanyrequests|too many requests|\b429\b|pull rate limit/i,
    make: (r, said) =>
      rateLimited(
        `registry ${r} refused: too many requests (its pull limit is reached; try later): ${said}`,
        "registry_rate_limited",
        {
          retryAfter: 60,
        },
      ),
  },
  {
    test: /x509:|tls: failed to verify|certificate signed by unknown authority|certificate is not valid|server gave HTTP response to HTTPS client|http: server gave http response/i,
    make: (r, said) =>
      upstream(
        `registry ${r} could not be spoken to securely: ${said}. The engine trusts a private CA from /etc/docker/certs.d/${r}/ca.crt; a registry without TLS must be allowed as an insecure registry in the engine's daemon.json`,
        "registry_tls",
      ),
  },
  {
    test: /unauthorized|authentication required|no basic auth credentials|incorrect username or password|pull access denied|denied: |access .*denied|failed to authorize|401 Unauthorized|403 Forbidden|insufficient_scope|invalid token|token expired/i,
    make: (r, said) =>
      upstream(
        `registry ${r} refused the credentials (none kept, wrong, expired or without access to this repository): ${said}`,
        "registry_unauthorized",
      ),
  },
  {
    test: /connection refused|no such host|i\/o timeout|network is unreachable|no route to host|context deadline exceeded|connection reset|TLS handshake timeout|dial tcp|\bEOF\b/i,
    make: (r, said) => upstream(`registry ${r} is unreachable: ${said}`, "registry_unreachable"),
    named: true,
  },
  {
    test: /manifest unknown|not found|repository does not exist|name unknown/i,
    make: (r, said) => notFound(`registry ${r} has no such image: ${said}`, "image_not_found"),
    named: true,
  },
]

/** The registry error a tool's or the engine's message stands for, naming `registry`; undefined when it is none of them. */
export function registryError(registry: string, message: string): DomainError | undefined {
  const said = message.trim().slice(0, 500)
  return PATTERNS.find((p) => p.test.test(said))?.make(registry, said)
}

/**
 * The registry error in a failed run's output (compose's, the docker CLI's) whose images are
 * `images`: the last line that says a registry refused, naming the registry of the image (or the
 * registry) it names, else of the run's only registry; undefined when no line says so.
 */
export function registryFailureIn(output: string, images: string[]): DomainError | undefined {
  const refs = images.flatMap((image) => {
    try {
      const { registry, repository } = parseRef(image)
      const names = registry === DOCKER_HUB ? [DOCKER_HUB_API, repository.replace(/^library\//, "")] : [registry]
      return [{ registry, names: [image, ...names] }]
    } catch {
      return []
    }
  })
  const registries = [...new Set(refs.map((r) => r.registry))]
  for (const line of output.split("\n").reverse()) {
    const pattern = PATTERNS.find((p) => p.test.test(line))
    if (!pattern) continue
    const named = refs.find((r) => r.names.some((n) => line.includes(n)))?.registry
    const registry = named ?? (pattern.named || registries.length !== 1 ? undefined : registries[0])
    if (registry) return pattern.make(registry, line.trim().slice(0, 500))
  }
  return undefined
}
