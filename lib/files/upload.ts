// What an upload's tar may hold: what the volume import takes (nothing named outside the folder it is
// unpacked into, no hard link out of it), and only files, folders and links: a device node or a FIFO
// unpacked by the service (root) would give a container what the engine's device rules deny it.
import { invalid } from "../errors/errors.ts"
import { checkEntry, type TarEntry } from "../volumes/tar-scan.ts"

const TAKEN = new Set(["0", "1", "2", "5", "g"])

export function checkUpload(e: TarEntry): void {
  checkEntry(e)
  if (!TAKEN.has(e.type))
    throw invalid(
      `the archive entry "${e.name.slice(0, 200)}" is a device or a FIFO: an upload holds files, folders and links only`,
      "unsafe_archive",
    )
}
