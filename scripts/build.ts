// `bun run build`: one executable, dist/harbormaster (or the path given as the first argument), with
// the source revision baked in (BUILD_SHA) and the web UI's bundle (scripts/ui.ts) embedded as public/
// beside server.ts (--asset), where the service serves it from, so it runs from any directory. The
// worker threads (the MP3 encoder's, the YAML parser's, the audit log's reader's) are entrypoints of
// their own (workers are not followed from `new Worker(...)` by the bundler).
// The code ships as bytecode: otherwise parsing it is most of what a start spends its time on. What
// is loaded by a dynamic import() (the MCP SDK, the Prometheus client, the speech workers' parts) is
// split into chunks of its own, read only when first imported: an idle service holds less memory.
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { gitSha } from "#lib/data/build-info.ts"
import { buildUi } from "./ui.ts"

const root = join(import.meta.dir, "..")
const outfile = process.argv[2] ? resolve(process.argv[2]) : join(root, "dist/harbormaster")
const sha = gitSha(root)
const ui = join(mkdtempSync(join(tmpdir(), "hm-ui-")), "public")
await buildUi(ui)
const build = Bun.spawnSync(
  [
    "bun",
    "build",
    "--compile",
    "--splitting",
    "--minify",
    "--bytecode",
    "--format=esm",
    "--define",
    `BUILD_SHA=${JSON.stringify(sha)}`,
    "--asset",
    ui,
    "--outfile",
    outfile,
    join(root, "server.ts"),
    join(root, "lib/tts/encoder-worker.ts"),
    join(root, "lib/stacks/yaml-worker.ts"),
    join(root, "lib/auth/audit-worker.ts"),
    join(root, "lib/catalog/parse-worker.ts"),
  ],
  { cwd: root, stdout: "inherit", stderr: "inherit" },
)
rmSync(join(ui, ".."), { recursive: true, force: true })
if (build.exitCode !== 0) process.exit(build.exitCode ?? 1)
console.log(`built ${outfile} (${sha})`)
