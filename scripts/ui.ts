// `bun scripts/ui.ts [DIR]`: the web UI's bundle (ui/index.html with its script and styles, and the
// editor's page ui/editor.html, minified,
// their names carrying a hash of their content) written into DIR, by default public/, which the
// service serves (@elysiajs/static). `bun run start` and the test set-up write it; scripts/build.ts
// writes one of its own and embeds it in the binary.
import { rmSync } from "node:fs"
import { join, resolve } from "node:path"

const root = join(import.meta.dir, "..")

/** Writes the bundle into `dir` (emptied first); throws with the bundler's messages when it fails. */
export async function buildUi(dir: string): Promise<void> {
  rmSync(dir, { recursive: true, force: true })
  // The editor is a page of its own (ui/editor.html), which the app loads when an editor first opens.
  const build = await Bun.build({
    entrypoints: [join(root, "ui/index.html"), join(root, "ui/editor.html")],
    outdir: dir,
    minify: true,
  })
  if (!build.success) throw new AggregateError(build.logs, "the UI bundle failed")
}

if (import.meta.main) await buildUi(process.argv[2] ? resolve(process.argv[2]) : join(root, "public"))
