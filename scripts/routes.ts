// Writes lib/routes.gen.ts, the static route manifest that lets a compiled binary find its handlers.
import { join } from "node:path"
import { renderManifest } from "../lib/manifest.ts"
import { writeFileAtomic } from "../lib/datadir.ts"

export async function handlerFiles(root: string): Promise<string[]> {
  return Array.fromAsync(new Bun.Glob("handlers/**/*.ts").scan({ cwd: root }))
}

if (import.meta.main) {
  const root = join(import.meta.dir, "..")
  writeFileAtomic(join(root, "lib/routes.gen.ts"), renderManifest(await handlerFiles(root)))
}
