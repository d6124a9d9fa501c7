// A volume's data as an uncompressed tar, out of and into the engine, through a throwaway container
// of the transfer image (SVC_TRANSFER_IMAGE, pulled on first use): no network, only the volume
// mounted (at /v), never started for a transfer, and always removed afterwards, also on failure.
//
// An import is checked twice: every entry's header as it streams past (an absolute name, a "../"
// or a hard link out of the volume fails it before that entry reaches the engine), and the engine
// itself unpacks inside the container's root, so that a symlink can at worst lead into the
// throwaway container's own root, which is removed with it.
import type { Engine } from "../engine/client.ts"
import { conflict, invalid, isDomainError, upstream } from "../errors/errors.ts"
import { TarScanner, tarGuard } from "./tar-scan.ts"

/** Docker's own rule for volume names. */
export const VOLUME_NAME = /^[a-zA-Z0-9][a-zA-Z0-9_.-]{1,254}$/

/** Containers and working volumes made here carry this label, so a leftover (after a crash) can be found. */
export const TRANSFER_LABEL = "harbormaster.transfer"

const isNotFound = (err: unknown) => isDomainError(err, "not_found")

/** Pulls `image` unless the engine has it. */
export async function ensureImage(engine: Engine, image: string): Promise<void> {
  try {
    await engine.inspectImage(image)
  } catch (err) {
    if (!isNotFound(err)) throw err
    await engine.pullImage(image)
  }
}

/** Creates the throwaway container with `volumes` mounted at their paths; `cmd` runs only if started. */
async function throwaway(
  engine: Engine,
  image: string,
  volumes: { name: string; at: string; readOnly?: boolean }[],
  cmd = ["true"],
): Promise<string> {
  await ensureImage(engine, image)
  const { Id } = await engine.createContainer({
    Image: image,
    Cmd: cmd,
    Labels: { [TRANSFER_LABEL]: "1" },
    NetworkDisabled: true,
    HostConfig: {
      NetworkMode: "none",
      Mounts: volumes.map((v) => ({
        Type: "volume",
        Source: v.name,
        Target: v.at,
        ReadOnly: v.readOnly ?? false,
        VolumeOptions: { NoCopy: true },
      })),
    },
  })
  return Id
}

const discard = (engine: Engine, id: string) => engine.removeContainer(id, { force: true }).catch(() => {})

/**
 * Removes the throwaway containers a killed process left behind (they hold their volumes, which
 * then cannot be removed), then the working volumes it left (a restore's, a probe's: volumes this
 * service made under the same label, never a stack's); run at start, when no transfer of this
 * service is under way. Answers how many it removed.
 */
export async function removeLeftoverThrowaways(engine: Engine): Promise<number> {
  const left = await engine.listContainers({ all: true, filters: { label: [TRANSFER_LABEL] } })
  await Promise.all(left.map((c) => discard(engine, c.Id)))
  const volumes = (await engine.listVolumes({ label: [TRANSFER_LABEL] })).filter(
    (v) => v.Labels?.[TRANSFER_LABEL] === "1",
  )
  await Promise.all(volumes.map((v) => engine.removeVolume(v.Name, { force: true }).catch(() => {})))
  return left.length + volumes.length
}

/** Runs `fn` with a throwaway container of `image` mounting `volumes` (`cmd` runs only if started), which is removed afterwards whatever happens. */
async function withThrowaway<T>(
  engine: Engine,
  { image, volumes, cmd }: { image: string; volumes: Parameters<typeof throwaway>[2]; cmd?: string[] },
  fn: (id: string) => Promise<T>,
): Promise<T> {
  const id = await throwaway(engine, image, volumes, cmd)
  try {
    return await fn(id)
  } finally {
    await discard(engine, id)
  }
}

/** The stream as it comes; `finish` runs once when it ends, fails or is cancelled. */
export function whenDone(stream: ReadableStream<Uint8Array>, finish: () => Promise<void>): ReadableStream<Uint8Array> {
  const reader = stream.getReader()
  let finished: Promise<void> | undefined
  const end = () => (finished ??= finish())
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const { done, value } = await reader.read()
          if (!done) return controller.enqueue(value)
          await end()
          controller.close()
        } catch (err) {
          await end()
          controller.error(err)
        }
      },
      async cancel(reason) {
        await reader.cancel(reason).catch(() => {})
        await end()
      },
    },
    { highWaterMark: 0 },
  )
}

export interface VolumeArchive {
  /** The tar stream as the engine sends it. */
  tar: ReadableStream<Uint8Array>
  /** Removes the throwaway container: once the stream was consumed, or abandoned. */
  release(): Promise<void>
}

/** The volume's content straight from the engine; 404 when the volume does not exist. */
export async function openVolume(engine: Engine, image: string, name: string): Promise<VolumeArchive> {
  await engine.inspectVolume(name)
  const id = await throwaway(engine, image, [{ name, at: "/v" }])
  try {
    return { tar: await engine.getArchive(id, "/v/."), release: () => discard(engine, id) }
  } catch (err) {
    await discard(engine, id)
    throw err
  }
}

/**
 * The volume's content as a tar stream that removes its container itself when it ends or is
 * cancelled, for a consumer this code does not see finish (an HTTP response). Each chunk passes
 * through JavaScript here; the copy, which knows when its consumer is done, uses `openVolume`.
 */
export async function exportVolume(engine: Engine, image: string, name: string): Promise<ReadableStream<Uint8Array>> {
  const { tar, release } = await openVolume(engine, image, name)
  return whenDone(tar, release)
}

/** Whether the volume mounted at /v in the container has any entry, reading only as far as the first. */
async function holdsData(engine: Engine, id: string): Promise<boolean> {
  let found = false
  const scanner = new TarScanner((e) => void (found ||= e.name !== "./" && e.name !== "."))
  const reader = (await engine.getArchive(id, "/v/.")).getReader()
  try {
    while (!found) {
      const { done, value } = await reader.read()
      if (done) break
      await scanner.push(value)
    }
  } finally {
    await reader.cancel().catch(() => {})
  }
  return found
}

export interface ImportResult {
  name: string
  created: boolean
}

/** The reason an import failed: the guard's refusal first, the engine's refusal of a broken tar as a 400. */
function refusal(err: unknown, guard: { error: unknown }): unknown {
  if (guard.error) return guard.error
  if (isDomainError(err) && /error processing tar file/i.test(err.message))
    return invalid(`the engine refused the archive: ${err.message}`, "invalid_archive")
  return err
}

/**
 * Unpacks a tar stream into the volume, creating it when absent. A volume that already holds data is
 * refused (409) unless `force`. An entry that points outside the volume, or an archive the engine
 * refuses, is a 400; a volume created by a failed import is removed again.
 */
export async function importVolume(
  engine: Engine,
  image: string,
  { volume: name, tar, force = false }: { volume: string; tar: ReadableStream<Uint8Array>; force?: boolean },
): Promise<ImportResult> {
  await ensureImage(engine, image)
  const created = await engine.inspectVolume(name).then(
    () => false,
    async (err) => {
      if (!isNotFound(err)) throw err
      await engine.createVolume(name)
      return true
    },
  )
  const guard = tarGuard(tar)
  try {
    // The container goes first: a volume still mounted could not be removed below.
    await withThrowaway(engine, { image, volumes: [{ name, at: "/v" }] }, async (id) => {
      if (!created && !force && (await holdsData(engine, id)))
        throw conflict(
          `volume ${name} already holds data; add ?force=true to unpack into it anyway`,
          "volume_not_empty",
        )
      await engine.putArchive(id, "/v", guard.stream).catch((err) => {
        throw refusal(err, guard)
      })
    })
  } catch (err) {
    if (created) await engine.removeVolume(name, { force: true }).catch(() => {})
    throw err
  }
  return { name, created }
}

/**
 * The size in bytes of each volume, measured by `du` in one throwaway container that mounts them all
 * read-only. Volumes that do not exist are left out.
 */
export async function measureVolumes(engine: Engine, image: string, names: string[]): Promise<Record<string, number>> {
  const existing = (await engine.listVolumes()).map((v) => v.Name)
  const present = names.filter((n) => existing.includes(n))
  if (!present.length) return {}
  const mounts = present.map((name, i) => ({ name, at: `/v/${i}`, readOnly: true }))
  return withThrowaway(
    engine,
    { image, volumes: mounts, cmd: ["du", "-s", "-b", ...mounts.map((m) => m.at)] },
    async (id) => {
      await engine.containerAction(id, "start")
      const { StatusCode } = await engine.waitContainer(id)
      if (StatusCode !== 0) throw upstream(`measuring volumes failed (du exited ${StatusCode})`, "engine_error")
      const sizes: Record<string, number> = {}
      for await (const { line } of engine.logs(id, { follow: false, tail: "all" })) {
        const m = /^(\d+)\s+\/v\/(\d+)$/.exec(line.trim())
        if (m) sizes[present[Number(m[2])]!] = Number(m[1])
      }
      return sizes
    },
  )
}
