// A client generated from the running service's /openapi works: openapi-typescript turns the
// document into types, a small program using them with openapi-fetch type-checks (tsc, strict), and
// that program deploys a stack, reads its environment and deletes it against the real service and
// engine.
import { afterAll, beforeAll, expect, test } from "bun:test"
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { cleanup, engineHost, realEngine, TEST_LABEL, testImage } from "../support/engine.ts"
import { startService, type Service } from "../support/service.ts"

const root = join(import.meta.dir, "../..")
const NAME = "hm-client"
let svc: Service
let dir: string

beforeAll(async () => {
  await cleanup(realEngine())
  svc = await startService({ DOCKER_HOST: engineHost() })
  dir = mkdtempSync(join(tmpdir(), "hm-client-"))
  symlinkSync(join(root, "node_modules"), join(dir, "node_modules"))
})
afterAll(async () => {
  await fetch(`${svc.url}/api/stacks/${NAME}?volumes=true`, { method: "DELETE" }).catch(() => {})
  await svc.stop()
  await cleanup(realEngine())
  rmSync(dir, { recursive: true, force: true })
})

/** Runs a command in the temp directory; its output when it fails. */
async function run(...cmd: string[]): Promise<void> {
  const proc = Bun.spawn(cmd, { cwd: dir, stdout: "pipe", stderr: "pipe" })
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ])
  if (code !== 0) throw new Error(`${cmd.join(" ")} failed (${code}):\n${out}\n${err}`)
}

/**
 * openapi-typescript builds its output with the TypeScript 5 compiler API, which the project's
 * TypeScript 7 (a native compiler) does not have: under Node it is given the typescript-5 package.
 */
const TS5_HOOK = `import { register } from "node:module"
register("data:text/javascript," + encodeURIComponent('export async function resolve(s, c, n) { return n(s === "typescript" ? "typescript-5" : s, c) }'))
`

const program = `import createClient from "openapi-fetch"
import type { paths } from "./api.ts"

type Status = "running" | "partly running" | "paused" | "stopped"

export async function roundTrip(baseUrl: string, name: string, content: string) {
  const client = createClient<paths>({ baseUrl })
  const deployed = await client.POST("/api/stacks", { body: { name, content, env: [{ key: "GREETING", value: "hello", secret: false }, { key: "TOKEN", value: "t0ken", secret: true }] } })
  if (!deployed.data) throw new Error(\`deploy: \${deployed.response.status} \${deployed.error?.error.message}\`)
  const status: Status = deployed.data.status
  const services: string[] = deployed.data.services.map((s) => s.name)
  const env = await client.GET("/api/stacks/{name}/env", { params: { path: { name } } })
  if (!env.data) throw new Error(\`env: \${env.error?.error.code}\`)
  const entries: { key: string; value: string | null; secret: boolean }[] = env.data
  const removed = await client.DELETE("/api/stacks/{name}", { params: { path: { name }, query: { volumes: "true" } } })
  if (!removed.data) throw new Error(\`delete: \${removed.error?.error.code}\`)
  const missing = await client.GET("/api/stacks/{name}", { params: { path: { name } } })
  const code: string | undefined = missing.error?.error.code
  return { created: deployed.response.status, status, services, entries, removed: removed.data.removed, after: missing.response.status, code }
}
`

test("a client generated from /openapi type-checks and deploys, reads and deletes a stack", async () => {
  writeFileSync(join(dir, "openapi.json"), await (await fetch(`${svc.url}/openapi`)).text())
  writeFileSync(join(dir, "ts5.mjs"), TS5_HOOK)
  await run(
    "node",
    "--import",
    "./ts5.mjs",
    "node_modules/openapi-typescript/bin/cli.js",
    "openapi.json",
    "--output",
    "api.ts",
  )
  writeFileSync(join(dir, "client.ts"), program)
  const compilerOptions = {
    strict: true,
    noEmit: true,
    target: "esnext",
    module: "esnext",
    moduleResolution: "bundler",
    allowImportingTsExtensions: true,
    skipLibCheck: true,
    types: [],
  }
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions, files: ["client.ts"] }))
  await run(join(root, "node_modules/.bin/tsc"), "-p", "tsconfig.json")

  const { roundTrip } = await import(join(dir, "client.ts"))
  const compose = `services:\n  app:\n    image: ${testImage()}\n    command: ["sh", "-c", "trap 'exit 0' TERM; while true; do sleep 1; done"]\n    environment:\n      GREETING: \${GREETING}\n      TOKEN: \${TOKEN}\n    labels: { ${TEST_LABEL}: "1" }\n`
  expect(await roundTrip(svc.url, NAME, compose)).toEqual({
    created: 201,
    status: "running",
    services: ["app"],
    entries: [
      { key: "GREETING", value: "hello", secret: false },
      { key: "TOKEN", value: null, secret: true },
    ],
    removed: NAME,
    after: 404,
    code: "not_found",
  })
})
