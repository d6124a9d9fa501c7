// Where a volume's or a container's files are reached: a volume's own folder when the engine is
// proved to keep it on this host and its driver is the plain local one (local.ts), else helper
// containers (helper.ts); a container's filesystem through the archive API (container.ts).
import { rmSync } from "node:fs"
import { join } from "node:path"
import type { Engine } from "../engine/client.ts"
import { volumeFolder } from "../volumes/folder.ts"
import { containerFiles } from "./container.ts"
import type { Files } from "./files.ts"
import { helperFiles } from "./helper.ts"
import { localFiles } from "./local.ts"

export interface FileTrees {
  /** The files of a volume (404 when it does not exist). */
  volume(name: string): Promise<Files>
  /** The filesystem of a container, running or not (404 when it does not exist). */
  container(id: string): Promise<Files>
}

/** The trees of `engine`; an upload that must arrive whole before it goes on is received into `<dataDir>/uploads`. */
export function fileTrees(engine: Engine, transferImage: string, dataDir: string): FileTrees {
  const spool = join(dataDir, "uploads")
  // Made once, before the first upload: what is there is a killed service's, and goes.
  rmSync(spool, { recursive: true, force: true })
  return {
    async volume(name) {
      const volume = await engine.inspectVolume(name)
      const folder = await volumeFolder(engine, volume)
      return folder ? localFiles(folder) : helperFiles(engine, transferImage, volume.Name, spool)
    },
    async container(id) {
      const info = await engine.inspectContainer(id)
      return containerFiles(engine, info.Id, spool)
    },
  }
}
