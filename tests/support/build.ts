// The compiled binary (scripts/build.ts, from the committed route manifest), built once per test run
// into a temporary directory outside the source tree: in scripts/test.sh's run folder (TEST_RUN_DIR),
// removed when the run ends.
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const root = join(import.meta.dir, "../..")
let binary: Promise<string> | undefined

async function compile(): Promise<string> {
  const dir = mkdtempSync(join(process.env.TEST_RUN_DIR ?? tmpdir(), "hm-build-"))
  const outfile = join(dir, "harbormaster")
  const proc = Bun.spawn(["bun", join(root, "scripts/build.ts"), outfile], {
    cwd: root,
    stdout: "pipe",
    stderr: "pipe",
  })
  if ((await proc.exited) !== 0) throw new Error(`scripts/build.ts failed: ${await new Response(proc.stderr).text()}`)
  return outfile
}

/** The path of the compiled binary. */
export const builtBinary = (): Promise<string> => (binary ??= compile())
