// Records of update checks, in <dataDir>/updates.json: per image reference whether its registry
// serves a newer digest than the local image's, per stack when it was last checked and whether any of
// its images has an update. A periodic check of every pulled image runs when an interval is set.
import { join } from "node:path"
import { readJson, writeJson } from "../data/datadir.ts"
import type { Engine } from "../engine/client.ts"
import { isDomainError } from "../errors/errors.ts"
import { localDigests, parseRef, type ImageRef } from "../engine/reference.ts"

/** The digest a registry serves now for a reference's tag (lib/registries asks it, with the credentials it keeps). */
export type RemoteDigest = (ref: ImageRef) => Promise<string>

export interface UpdateRecord {
  ref: string
  /** The local image the reference names, null when there is none. */
  image: string | null
  local_digests: string[]
  remote_digest: string | null
  /** null when it cannot be told (no local image, no digest from this registry, registry error). */
  update_available: boolean | null
  checked_at: string
  error: string | null
}

export interface StackUpdateRecord {
  stack: string
  images: string[]
  update_available: boolean
  checked_at: string
}

interface UpdateFile {
  images: Record<string, UpdateRecord>
  stacks: Record<string, StackUpdateRecord>
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err))

/** Registry update checks of images and their records (updates.json); guarded stack updates are lib/updates'. */
export class ImageUpdates {
  private writing: Promise<unknown> = Promise.resolve()
  private cached: UpdateFile | undefined
  private readonly file: string

  constructor(
    dataDir: string,
    private readonly engine: Engine,
    private readonly remoteDigest: RemoteDigest,
    private readonly now: () => number = Date.now,
  ) {
    this.file = join(dataDir, "updates.json")
  }

  async records(): Promise<UpdateFile> {
    return (this.cached ??= await readJson<UpdateFile>(this.file, { images: {}, stacks: {} }))
  }

  /** Asks the reference's registry for its current digest and compares it with the local image. */
  async check(ref: string): Promise<UpdateRecord> {
    const checked_at = new Date(this.now()).toISOString()
    const parsed = parseRef(ref)
    const local = await this.engine.inspectImage(ref).catch((err) => {
      if (isDomainError(err, "not_found")) return undefined
      throw err
    })
    const base = {
      ref,
      image: local?.Id ?? null,
      local_digests: local ? localDigests(parsed, local.RepoDigests ?? []) : [],
      checked_at,
    }
    if (parsed.digest) return { ...base, remote_digest: parsed.digest, update_available: false, error: null }
    if (!local)
      return { ...base, remote_digest: null, update_available: null, error: "the image is not present locally" }
    let remote: string
    try {
      remote = await this.remoteDigest(parsed)
    } catch (err) {
      return { ...base, remote_digest: null, update_available: null, error: message(err) }
    }
    if (!base.local_digests.length)
      return {
        ...base,
        remote_digest: remote,
        update_available: null,
        error: `the local image has no digest from ${parsed.registry} (built or loaded here)`,
      }
    return { ...base, remote_digest: remote, update_available: !base.local_digests.includes(remote), error: null }
  }

  /** Checks the references one after another and records the results (and the stack's, when given). */
  async checkAll(refs: string[], stack?: string): Promise<UpdateRecord[]> {
    const results: UpdateRecord[] = []
    for (const ref of [...new Set(refs)]) {
      const failed = (err: unknown): UpdateRecord => ({
        ref,
        image: null,
        local_digests: [],
        remote_digest: null,
        update_available: null,
        checked_at: new Date(this.now()).toISOString(),
        error: message(err),
      })
      results.push(await this.check(ref).catch(failed))
    }
    await this.save((file) => {
      for (const r of results) file.images[r.ref] = r
      if (stack !== undefined)
        file.stacks[stack] = {
          stack,
          images: results.map((r) => r.ref),
          update_available: results.some((r) => r.update_available),
          checked_at: new Date(this.now()).toISOString(),
        }
    })
    return results
  }

  private save(change: (file: UpdateFile) => void): Promise<unknown> {
    this.writing = this.writing.then(async () => {
      const file = await this.records()
      change(file)
      writeJson(this.file, file)
    })
    return this.writing
  }

  /** References whose registry has a newer version than the local image. */
  async pending(): Promise<UpdateRecord[]> {
    return Object.values((await this.records()).images).filter((r) => r.update_available)
  }

  /** Checks each tag of every image that came from a registry (lib/service/background.ts runs it every SVC_UPDATE_INTERVAL). */
  async checkPulled(): Promise<void> {
    const images = await this.engine.listImages().catch(() => [])
    const refs = images
      .filter((i) => i.RepoDigests?.length)
      .flatMap((i) => (i.RepoTags ?? []).filter((t) => t !== "<none>:<none>"))
    await this.checkAll(refs).catch((err) => console.error("periodic update check:", message(err)))
  }
}
