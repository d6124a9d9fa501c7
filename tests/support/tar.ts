// Tar archives for tests, built with tar-stream.
import { pack } from "tar-stream"

export interface TarFile {
  name: string
  content?: string
  type?: "file" | "directory" | "symlink" | "link"
  linkname?: string
}

export async function makeTar(files: TarFile[]): Promise<Uint8Array<ArrayBuffer>> {
  const p = pack()
  for (const f of files) {
    const header = { name: f.name, type: f.type ?? "file", linkname: f.linkname }
    if (header.type === "file") p.entry(header, f.content ?? "")
    else p.entry(header)
  }
  p.finalize()
  const chunks: Buffer[] = []
  for await (const chunk of p) chunks.push(chunk as Buffer)
  return new Uint8Array(Buffer.concat(chunks))
}
