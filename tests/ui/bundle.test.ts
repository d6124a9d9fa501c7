// The page weight: builds the UI's bundle as the service ships it (scripts/ui.ts) and prints the sizes;
// and public/, which `bun server.ts` serves, holds that very bundle (else: bun scripts/ui.ts).
import { afterAll, expect, test } from "bun:test"
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { gzipSync } from "node:zlib"
import { buildUi } from "../../scripts/ui.ts"

/**
 * Everything the browser loads for the first page, minified (xterm.js, the terminal, and uPlot, the
 * resource charts' ~50 kB, included; the lists' search, filters, sort and selection ~17 kB, the
 * dashboard's tiles and cards and the backups page about as much; the catalog's pages, the account
 * page with its sessions and second factor, about 12 kB together; passkeys, @simplewebauthn/browser's
 * 8.6 kB and their pages' 3 kB).
 */
const BUDGET = 592_000

/**
 * The editor's page (ui/editor.html: CodeMirror 6 with its YAML, JSON and properties modes, lint,
 * completion and the merge view, the yaml parser, a JSON schema validator and the compose
 * specification's schema), loaded only when an editor opens: not part of the first page.
 */
const EDITOR_BUDGET = 720_000

/** The files a page of the bundle loads: the page and the scripts and styles it names. */
const pageFiles = (page: string) => [
  page,
  ...[...readFileSync(join(dir, page), "utf8").matchAll(/(?:src|href)="\.?\/?([^"]+\.(?:js|css))"/g)].map((m) => m[1]!),
]

const dir = mkdtempSync(join(tmpdir(), "hm-ui-"))
await buildUi(dir)
const files = readdirSync(dir).sort()
afterAll(() => rmSync(dir, { recursive: true, force: true }))

test("the editor is a page of its own, loaded when an editor opens: the first page does not carry it", () => {
  const editor = pageFiles("editor.html")
  const size = editor.reduce((n, f) => n + readFileSync(join(dir, f)).length, 0)
  console.log(`editor.html and its script: ${size} B`)
  expect(size).toBeLessThan(EDITOR_BUDGET)
  const js = (page: string) =>
    pageFiles(page)
      .filter((f) => f.endsWith(".js"))
      .map((f) => readFileSync(join(dir, f), "utf8"))
      .join("")
  // CodeMirror's view (its class names) is in the editor's page and not in the first page.
  expect(js("editor.html")).toContain("cm-content")
  expect(js("index.html")).not.toContain("cm-content")
})

test("the UI bundle stays small", () => {
  let total = 0
  let gzipped = 0
  for (const name of pageFiles("index.html")) {
    const bytes = readFileSync(join(dir, name))
    total += bytes.length
    gzipped += gzipSync(bytes).length
    console.log(
      `${name.padEnd(28)} ${String(bytes.length).padStart(8)} B  ${String(gzipSync(bytes).length).padStart(7)} B gzip`,
    )
  }
  console.log(`${"total".padEnd(28)} ${String(total).padStart(8)} B  ${String(gzipped).padStart(7)} B gzip`)
  expect(files.some((f) => f.endsWith(".js"))).toBe(true)
  expect(total).toBeLessThan(BUDGET)
})

test("public/ is the bundle of ui/ as it is (bun scripts/ui.ts writes it)", () => {
  const served = join(import.meta.dir, "../../public")
  expect(readdirSync(served).sort()).toEqual(files)
  for (const name of files)
    expect([name, readFileSync(join(served, name)).equals(readFileSync(join(dir, name)))]).toEqual([name, true])
})
