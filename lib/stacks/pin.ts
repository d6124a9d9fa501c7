// What a compose stack ran before a guarded change, and bringing its images back (the compose
// orchestrator's pin and way back, lib/stacks/compose-orchestrator.ts). Before an update pulls, each
// service's running container is read: the reference it was created from (Config.Image), the image it
// runs (its id) and that image's digest in the reference's repository (`repo@sha256:...` from
// RepoDigests, which both image stores keep for a pulled image), beside the records of the stack's
// current version.
//
// Bringing images back re-points the service's tag at the pinned image locally (POST
// /images/{id}/tag), by image id, else by the pinned digest reference; nothing is pulled. Why a
// re-tag and not an override pinning `image: repo@sha256:...`: the compose file stays byte for byte
// the recorded one (an override is a second `-f` the stack store never passes, and rewriting the
// stored file would make the stack's file differ from its user's); both compose versions then
// recreate exactly the services whose image id moved, as after any pull; and it does not depend on
// the engine still resolving `repo@sha256:...` locally: on the containerd store an image whose tag
// has moved on is kept dangling under no name, so a digest reference would send compose to the
// registry (a pull), while its id (the index digest there, the config digest on the classic store)
// still names it as long as a container uses it.
import { SERVICE_LABEL, STACK_LABEL } from "../engine/containers.ts"
import type { Engine } from "../engine/client.ts"
import { isDomainError } from "../errors/errors.ts"
import { localDigests, parseRef } from "../engine/reference.ts"
import type { ImageChange, Pinned } from "./orchestrator.ts"

export interface PinnedService {
  service: string
  /** The reference the service's container was created from. */
  ref: string
  image_id: string
  /** `repo@sha256:...`; null for an image built or loaded here (no digest from a registry). */
  digest_ref: string | null
  /** Whether the container was running (a stopped one-shot service is not watched). */
  running: boolean
  /** A tag of our own on the pinned image while the operation runs (`repo:hm-pin-<stack>-<service>`), null when it could not be set. */
  hold: string | null
}

export interface Pin extends Pinned {
  services: PinnedService[]
}

/** `repo` and `tag` of a tag reference; null for a digest reference or an image id. */
export function splitTag(ref: string): { repo: string; tag: string } | null {
  if (ref.includes("@") || /^(sha256:)?[a-f0-9]{64}$/.test(ref)) return null
  const colon = ref.lastIndexOf(":")
  return colon > ref.lastIndexOf("/")
    ? { repo: ref.slice(0, colon), tag: ref.slice(colon + 1) }
    : { repo: ref, tag: "latest" }
}

/** The image's digest in the reference's repository, as `repo@sha256:...`. */
export function digestRef(ref: string, repoDigests: string[]): string | null {
  try {
    const parsed = parseRef(ref)
    const digest = localDigests(parsed, repoDigests)[0]
    if (!digest) return null
    const at = repoDigests.find((d) => d.endsWith(`@${digest}`))
    return at ?? null
  } catch {
    return null
  }
}

/** What each service of the project runs now, beside the records of the version it runs (`recorded`). */
export async function pinStack(engine: Engine, name: string, recorded: Omit<Pinned, "stack" | "images">): Promise<Pin> {
  const containers = await engine.listContainers({ all: true, filters: { label: [`${STACK_LABEL}=${name}`] } })
  const services = new Map<string, PinnedService>()
  for (const c of containers) {
    const service = c.Labels[SERVICE_LABEL] ?? ""
    const known = services.get(service)
    if (known?.running) continue
    const inspect = await engine.inspectContainer(c.Id)
    const image = await engine.inspectImage(inspect.Image).catch(() => undefined)
    services.set(service, {
      service,
      ref: inspect.Config.Image,
      image_id: inspect.Image,
      digest_ref: image ? digestRef(inspect.Config.Image, image.RepoDigests ?? []) : null,
      running: inspect.State.Running,
      hold: null,
    })
  }
  const pinned = [...services.values()]
  return {
    stack: name,
    ...recorded,
    services: pinned,
    images: pinned.map((s) => ({
      service: s.service,
      ref: s.ref,
      image: s.digest_ref ?? s.image_id,
      running: s.running,
    })),
  }
}

/** The image id a reference names locally now, null when there is none. */
export async function localImageId(engine: Engine, ref: string): Promise<string | null> {
  return engine.inspectImage(ref).then(
    (i) => i.Id,
    (err) => {
      if (isDomainError(err, "not_found")) return null
      throw err
    },
  )
}

/** Services whose tag now names another image than the pinned one. */
export async function movedServices(
  engine: Engine,
  pin: Pin,
): Promise<{ service: PinnedService; now: string | null }[]> {
  const moved = []
  for (const s of pin.services) {
    if (!splitTag(s.ref)) continue
    const now = await localImageId(engine, s.ref)
    if (now !== s.image_id) moved.push({ service: s, now })
  }
  return moved
}

const holdTag = (pin: Pin, s: PinnedService) => `hm-pin-${pin.stack}-${s.service}`.slice(0, 128)

/**
 * Tags each pinned image with a name of our own for the time of the operation. Without it, the
 * containerd store lets go of an image once its tag has moved and its last container is gone (checked:
 * neither its id nor its digest reference can be tagged again after the update recreated the
 * container); the classic store keeps it dangling. With it, both keep it.
 */
export async function holdImages(engine: Engine, pin: Pin): Promise<void> {
  for (const s of pin.services) {
    const split = splitTag(s.ref)
    if (!split) continue
    const tag = holdTag(pin, s)
    s.hold = await engine.tagImage(s.image_id, split.repo, tag).then(
      () => `${split.repo}:${tag}`,
      () => null,
    )
  }
}

/** Removes the tags `holdImages` set (only the names: an image another name or a container uses stays). */
export async function releaseImages(engine: Engine, pin: Pin): Promise<void> {
  for (const s of pin.services) {
    if (!s.hold) continue
    const still = await localImageId(engine, s.hold).catch(() => null)
    if (still === s.image_id) await engine.removeImage(s.hold).catch(() => {})
    s.hold = null
  }
}

/** Each pinned service's image and the one its tag names now (null where it did not move, or names none); `moved` when any tag no longer names its pinned image. */
export async function imageChanges(engine: Engine, pin: Pin): Promise<{ images: ImageChange[]; moved: boolean }> {
  const moved = await movedServices(engine, pin)
  const images = await Promise.all(
    pin.services.map(async (s) => {
      const to_id = moved.find((m) => m.service === s)?.now ?? null
      const image = to_id ? await engine.inspectImage(to_id).catch(() => undefined) : undefined
      return {
        service: s.service,
        ref: s.ref,
        from: s.digest_ref ?? s.image_id,
        from_id: s.image_id,
        to: to_id ? ((image && digestRef(s.ref, image.RepoDigests ?? [])) ?? to_id) : null,
        to_id,
      }
    }),
  )
  return { images, moved: moved.length > 0 }
}

/** Points each moved tag back at its pinned image; answers what could not be restored and how to fix it by hand. */
export async function restoreImages(engine: Engine, pin: Pin): Promise<string[]> {
  const problems: string[] = []
  for (const { service: s } of await movedServices(engine, pin)) {
    const { repo, tag } = splitTag(s.ref)!
    const sources = [...(s.hold ? [s.hold] : []), s.image_id, ...(s.digest_ref ? [s.digest_ref] : [])]
    let done = false
    for (const source of sources) {
      done = await engine.tagImage(source, repo, tag).then(
        () => true,
        () => false,
      )
      if (done) break
    }
    if (!done)
      problems.push(
        `service ${s.service}: the previous image ${s.digest_ref ?? s.image_id} is gone from this host; pull ${s.digest_ref ?? "it"} and tag it as ${repo}:${tag}, then bring the stack up`,
      )
  }
  return problems
}
