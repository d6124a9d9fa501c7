// Entry point: `bun server.ts` or the compiled binary. Reads the environment once, builds the
// context, serves the API, the UI and the WebSocket routes on one port.
import { appendFileSync, existsSync } from "node:fs"
import { join } from "node:path"
import { staticPlugin } from "@elysiajs/static"
import { createApp } from "#lib/service/app.ts"
import { ConfigError, loadConfig } from "#lib/service/config.ts"
import { createContext } from "#lib/service/context.ts"
import { dockerEngine } from "#lib/engine/client.ts"
import { engineHealth } from "#lib/engine/health.ts"
import { removeStaleTemps } from "#lib/data/datadir.ts"
import { openSecrets } from "#lib/service/secrets.ts"
import { background } from "#lib/service/background.ts"
import { link } from "#lib/cluster/link.ts"
import { isDomainError } from "#lib/errors/errors.ts"
import { routes } from "./routes.gen.ts"

/**
 * The web UI's bundle (scripts/ui.ts): public/ beside this file, from the source or, in the compiled
 * binary, embedded with it (scripts/build.ts). Files are revalidated by their ETag on each load, so an
 * upgraded service is seen at once.
 */
async function uiFiles() {
  const assets = join(import.meta.dir, "public")
  if (!existsSync(join(assets, "index.html"))) {
    console.log(`the web UI is not built (${assets}): bun scripts/ui.ts writes it; serving the API only`)
    return undefined
  }
  return staticPlugin({ assets, prefix: "/", alwaysStatic: true, directive: "no-cache", maxAge: null })
}

export async function start(env: Record<string, string | undefined> = process.env) {
  const config = loadConfig(env)
  // The engine is asked what /api/health reports while the service starts: the first health request takes that answer.
  // Its pulls and pushes carry the credentials of the kept registries (the context's, made by the first pull).
  const engine = dockerEngine(config.dockerHost, config.dockerApiVersion, (ref) => ctx.registries.engineAuth(ref))
  const health = engineHealth(engine)
  const launched = health.get()
  removeStaleTemps(config.dataDir)
  console.log(openSecrets(config.secretKey))
  const ctx = await createContext(config, { engine, engineHealth: health })
  const driftLog = config.responseDriftLog
  const app = createApp(
    ctx,
    routes,
    await uiFiles(),
    driftLog ? (drift) => appendFileSync(driftLog, `${drift}\n`) : undefined,
  )
  // A member behind NAT carries its control plane's calls to the app in this process.
  link.api = app.fetch
  const setup = ctx.auth.setupToken()
  if (setup)
    console.log(
      `no admin yet: create one with POST /api/auth/setup {"token": "${setup}", "user", "password"} (the token works once), or \`user add NAME --role admin\` on this server`,
    )
  const server = app.listen({
    hostname: config.addr.host,
    port: config.addr.port,
    maxRequestBodySize: Number.MAX_SAFE_INTEGER,
    idleTimeout: 120,
    development: false,
  })
  // In the same turn as the listening: the stack migration is done before any request is answered.
  // The other jobs begin once the engine answered the launch check (or its deadline passed): their
  // own calls to the engine would slow that first answer down.
  const [migration, ...others] = background
  ctx.jobs.start([migration!], ctx)
  void launched.then(() => ctx.jobs.start(others, ctx))
  const shutdown = async () => {
    void server.stop(true)
    await ctx.jobs.stop()
    process.exit(0)
  }
  // A promise rejected where nobody listens is a defect to fix, not a reason to stop serving.
  process.on("unhandledRejection", (err) =>
    console.error("unhandled rejection:", err instanceof Error ? err.message : err),
  )
  process.on("SIGTERM", shutdown)
  process.on("SIGINT", shutdown)
  console.log(
    `listening on http://${config.addr.host.includes(":") ? `[${config.addr.host}]` : config.addr.host}:${server.port} (engine ${config.dockerHost}, data ${config.dataDir})`,
  )
  return server
}

if (import.meta.main && process.env.HM_TTS_WORKER === "1") {
  // A compiled binary's speech workers are the binary itself (lib/tts/pool.ts).
  await (await import("#lib/tts/worker.ts")).serve()
} else if (import.meta.main && process.env.HM_PTY_WORKER === "1") {
  // A compiled binary's host terminal workers are the binary itself (lib/host/terminal.ts).
  await (await import("#lib/host/pty-worker.ts")).serve()
} else if (import.meta.main && process.argv[2] === "user") {
  // Local users from the command line: `bun server.ts user add NAME --role admin` (password on stdin).
  // With the service's secret key: a user's second factor is kept sealed with it.
  const { userCommand } = await import("#lib/auth/cli.ts")
  const { loadKeys } = await import("#lib/data/secret-key.ts")
  const { useKeys } = await import("#lib/data/sealed.ts")
  const config = loadConfig(process.env)
  useKeys(loadKeys(config.secretKey))
  process.exit(
    await userCommand(process.argv.slice(3), config.dataDir, {
      stdin: () => Bun.stdin.text(),
      out: (line) => console.log(line),
    }),
  )
} else if (import.meta.main && process.argv[2] === "restore-state") {
  // The service's state from a restic repository into a new data directory (docs/operations.md#the-services-state).
  const { restoreStateCommand } = await import("#lib/service/restore-state.ts")
  process.exit(
    await restoreStateCommand(process.argv.slice(3), process.env, loadConfig(process.env).dataDir, (line) =>
      console.log(line),
    ),
  )
} else if (import.meta.main && process.argv[2] === "secret-key") {
  // The secret key (docs/operations.md#secrets-at-rest): `bun server.ts secret-key new|rotate`.
  const { secretKeyCommand } = await import("#lib/service/secrets.ts")
  process.exit(secretKeyCommand(process.argv.slice(3), loadConfig(process.env).secretKey, (line) => console.log(line)))
} else if (import.meta.main) {
  try {
    await start()
  } catch (err) {
    if (!(err instanceof ConfigError) && !isDomainError(err, "invalid")) throw err
    console.error(`configuration error: ${(err as Error).message}`)
    process.exit(2)
  }
}
