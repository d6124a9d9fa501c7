// The page weight: builds ui/index.html the way the server bundles it and prints the sizes.
import { expect, test } from "bun:test"
import { join } from "node:path"
import { gzipSync } from "node:zlib"

/**
 * Everything the browser loads for the first page, minified (xterm.js, the terminal, and uPlot, the
 * resource charts' ~50 kB, included; the lists' search, filters, sort and selection ~17 kB, the
 * dashboard's tiles and cards and the backups page about as much).
 */
const BUDGET = 560_000

test("the UI bundle stays small", async () => {
  const build = await Bun.build({ entrypoints: [join(import.meta.dir, "../../ui/index.html")], minify: true })
  expect(build.success).toBe(true)
  let total = 0
  let gzipped = 0
  for (const out of build.outputs) {
    const bytes = new Uint8Array(await out.arrayBuffer())
    total += bytes.length
    gzipped += gzipSync(bytes).length
    console.log(
      `${out.path.padEnd(28)} ${String(bytes.length).padStart(8)} B  ${String(gzipSync(bytes).length).padStart(7)} B gzip`,
    )
  }
  console.log(`${"total".padEnd(28)} ${String(total).padStart(8)} B  ${String(gzipped).padStart(7)} B gzip`)
  expect(build.outputs.some((o) => o.path.endsWith(".js"))).toBe(true)
  expect(total).toBeLessThan(BUDGET)
})
