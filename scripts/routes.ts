// Writes routes.gen.ts beside server.ts, the static route manifest that lets a compiled binary find
// its handlers. Only the entry points import it: lib/ never imports a handler. Each handler file is
// imported here to read the `role`, `access` and `browserGuard` of its default export, which the manifest carries so that the service
// loads the file itself only when its route is first asked for.
import { join } from "node:path"
import { renderManifest, type FrontDoor } from "#lib/http/manifest.ts"
import { writeFileAtomic } from "#lib/data/datadir.ts"

export async function handlerFiles(root: string): Promise<string[]> {
  return Array.fromAsync(new Bun.Glob("handlers/**/*.ts").scan({ cwd: root }))
}

/** The manifest's text for the handler files under `root`. */
export async function manifest(root: string): Promise<string> {
  const files = await handlerFiles(root)
  const doors: Record<string, FrontDoor> = {}
  for (const f of files) {
    const { role, access, browserGuard } = ((await import(join(root, f))) as { default: FrontDoor }).default
    doors[f] = { role, access, browserGuard }
  }
  return renderManifest(files, doors)
}

if (import.meta.main) {
  const root = join(import.meta.dir, "..")
  writeFileAtomic(join(root, "routes.gen.ts"), await manifest(root))
}
