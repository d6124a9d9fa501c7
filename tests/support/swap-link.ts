// Turns <dir>/<name> into a real folder (holding one file, `f`), then into a symlink to <target>, as
// fast as it can until killed: what a container binding <dir> can do to the service's operations on
// files in it. Prints "ready" after its first thousand rounds. A folder someone else made at the name
// while it was free is moved aside.
//   bun tests/support/swap-link.ts <dir> <name> <target>
import { lstatSync, mkdirSync, renameSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"

const [dir, name, target] = process.argv.slice(2) as [string, string, string]
const at = join(dir, name)
const real = join(dir, `${name}.real`)
mkdirSync(real, { recursive: true })
writeFileSync(join(real, "f"), "inside\n")
const attempt = (fn: () => void) => {
  try {
    fn()
  } catch {}
}
for (let round = 1; ; round++) {
  attempt(() => renameSync(real, at))
  attempt(() => renameSync(at, real))
  attempt(() => symlinkSync(target, at))
  attempt(() => unlinkSync(at))
  if (lstatSync(at, { throwIfNoEntry: false })?.isDirectory())
    attempt(() => renameSync(at, join(dir, `${name}.made-${round}`)))
  if (round === 1000) console.log("ready")
}
