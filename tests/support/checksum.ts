// A checksum of a whole folder (names, modes, contents, link targets): equal before and after, the
// folder was not touched.
import { createHash } from "node:crypto"
import { lstatSync, readdirSync, readFileSync, readlinkSync } from "node:fs"
import { join } from "node:path"

export function treeChecksum(dir: string): string {
  const hash = createHash("sha256")
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name)
      const st = lstatSync(p)
      hash.update(`${p}:${st.mode}\n`)
      if (st.isDirectory()) walk(p)
      else if (st.isSymbolicLink()) hash.update(readlinkSync(p))
      else hash.update(readFileSync(p))
    }
  }
  walk(dir)
  return hash.digest("hex")
}
