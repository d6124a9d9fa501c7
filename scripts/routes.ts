// Writes routes.gen.ts beside server.ts, the static route manifest that lets a compiled binary find
// its handlers. Only the entry points import it: lib/ never imports a handler.
import { join } from "node:path"
import { renderManifest } from "#lib/http/manifest.ts"
import { writeFileAtomic } from "#lib/data/datadir.ts"

export async function handlerFiles(root: string): Promise<string[]> {
  return Array.fromAsync(new Bun.Glob("handlers/**/*.ts").scan({ cwd: root }))
}

if (import.meta.main) {
  const root = join(import.meta.dir, "..")
  writeFileAtomic(join(root, "routes.gen.ts"), renderManifest(await handlerFiles(root)))
}
