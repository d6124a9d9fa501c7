// An upload received whole into a file of the data directory before any of it goes to the engine:
// a file sent without Content-Length (the engine's archive takes a file's size in its tar header,
// before its bytes), and every upload into a container (the engine writes a file over the old one as
// its archive arrives, so a body cut short would leave half a file). The folder is 0700; the file is
// removed once `use` is done, whatever happened.
import { mkdirSync, rmSync } from "node:fs"
import { join } from "node:path"
import { randomBytes } from "node:crypto"
import type { BunFile } from "bun"

export async function spooled<T>(
  folder: string,
  body: ReadableStream<Uint8Array>,
  use: (file: BunFile) => Promise<T>,
): Promise<T> {
  mkdirSync(folder, { recursive: true, mode: 0o700 })
  const path = join(folder, `upload-${randomBytes(8).toString("hex")}`)
  try {
    await Bun.write(path, new Response(body))
    return await use(Bun.file(path))
  } finally {
    rmSync(path, { force: true })
  }
}
