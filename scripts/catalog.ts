// `bun scripts/catalog.ts`: writes lib/catalog/shipped.gen.ts, the catalog shipped with the service,
// from the template folders under lib/catalog/shipped/ (the folder format, docs/catalog.md): each
// file's text embedded, so the compiled binary carries them and the catalog works offline.
// tests/lib/catalog/shipped.test.ts fails while the committed file differs from what this writes.
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join, relative } from "node:path"

const root = join(import.meta.dir, "../lib/catalog")

/** Template id → its folder's files (relative path → text), as lib/catalog/shipped/ holds them. */
export function shippedFiles(): Record<string, Record<string, string>> {
  const folder = join(root, "shipped")
  const templates: Record<string, Record<string, string>> = {}
  for (const entry of readdirSync(folder, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue
    const path = relative(folder, join(entry.parentPath, entry.name))
    const [id, ...rest] = path.split("/")
    ;(templates[id!] ??= {})[rest.join("/")] = readFileSync(join(folder, path), "utf8")
  }
  return Object.fromEntries(
    Object.keys(templates)
      .sort()
      .map((id) => [id, Object.fromEntries(Object.entries(templates[id]!).sort(([a], [b]) => (a < b ? -1 : 1)))]),
  )
}

/** The file's text as this script writes it (before the formatter). */
export function shippedModule(): string {
  const sorted = shippedFiles()
  return `// Written by scripts/catalog.ts from lib/catalog/shipped/: do not edit by hand.\n// Template id → its folder's files (relative path → text).\nexport const shipped: Record<string, Record<string, string>> = ${JSON.stringify(sorted, null, 2)}\n`
}

if (import.meta.main) {
  const file = join(root, "shipped.gen.ts")
  writeFileSync(file, shippedModule())
  Bun.spawnSync(["bunx", "biome", "format", "--write", file], { stdout: "ignore", stderr: "inherit" })
  console.log("wrote lib/catalog/shipped.gen.ts")
}
