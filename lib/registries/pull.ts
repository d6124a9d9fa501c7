// A pull asked for by name (the image pull route, a scan of an image not yet here): through the
// engine, with the credentials of the reference's kept registry (the engine client adds them). Docker
// Hub's quota is read first with a HEAD on the manifest, which Docker Hub does not count: with no
// pull left the pull is refused before the engine tries, naming the registry.
import type { Engine } from "../engine/client.ts"
import { DOCKER_HUB, parseRef } from "../engine/reference.ts"
import { isDomainError, rateLimited } from "../errors/errors.ts"
import type { Quota } from "./client.ts"
import type { Registries } from "./registries.ts"

export interface PullResult {
  ref: string
  /** The image id the reference names now. */
  id: string
  /** The registry's host (docker.io for Docker Hub). */
  registry: string
  /** The kept registry whose credentials went with the pull, null for an anonymous pull. */
  credentials: string | null
  /** The registry's pull quota as it stood before this pull (Docker Hub), null when it reports none. */
  pull_quota: Quota | null
}

export async function pullImage(
  engine: Pick<Engine, "pullImage" | "inspectImage">,
  registries: Pick<Registries, "digest" | "quota" | "nameFor">,
  ref: string,
): Promise<PullResult> {
  const parsed = parseRef(ref)
  let quota: Quota | null = null
  if (parsed.registry === DOCKER_HUB && !parsed.digest) {
    await registries.digest(parsed).catch(() => {})
    quota = registries.quota(DOCKER_HUB)
    if (quota?.remaining === 0)
      throw rateLimited(
        `registry docker.io has no pull left for these credentials (0 of ${quota.limit ?? "?"} in ${quota.window_seconds ?? "?"} s): try later, or keep a Docker Hub account's credentials`,
        "registry_rate_limited",
        { retryAfter: 600 },
      )
  }
  await engine.pullImage(ref)
  const image = await engine.inspectImage(ref)
  return {
    ref,
    id: image.Id,
    registry: parsed.registry,
    credentials: await registries.nameFor(ref),
    pull_quota: quota,
  }
}

/** Pulls `ref` (as `pullImage`) only when the engine does not have it; answers whether it pulled. */
export async function pulledIfMissing(
  engine: Pick<Engine, "pullImage" | "inspectImage">,
  registries: Pick<Registries, "digest" | "quota" | "nameFor">,
  ref: string,
): Promise<boolean> {
  const here = await engine.inspectImage(ref).then(
    () => true,
    (err) => {
      if ((err as { status?: number }).status === 404 || isDomainError(err, "not_found")) return false
      throw err
    },
  )
  if (!here) await pullImage(engine, registries, ref)
  return !here
}
