// A handler-test harness: the real app over a fake engine and a temp data directory. Every answer is
// checked against its route's `response` schema: a test that sees one off its schema fails.
import { afterEach } from "bun:test"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createApp, type RouteRow } from "#lib/http/app.ts"
import { loadConfig } from "#lib/service/config.ts"
import { createContext, type Ctx } from "#lib/service/context.ts"
import { FakeEngine } from "./fake-engine.ts"
import { routes } from "../../routes.gen.ts"

const drifts: string[] = []
afterEach(() => {
  const seen = drifts.splice(0)
  if (seen.length) throw new Error(`answers off their schema:\n${seen.join("\n")}`)
})

/** The app over the real route manifest, as server.ts builds it, checking every answer against its schema. */
export const appFor = (ctx: Ctx) => createApp(ctx, routes as unknown as RouteRow[], {}, (message) => void drifts.push(message))

export interface TestApp {
  ctx: Ctx
  engine: FakeEngine
  dataDir: string
  /** Calls the app like a curl client on loopback would. */
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Response>
  close(): void
}

export async function testApp(overrides: Partial<Ctx> = {}, env: Record<string, string> = {}): Promise<TestApp> {
  const dataDir = mkdtempSync(join(tmpdir(), "hm-data-"))
  const engine = new FakeEngine()
  const ctx = await createContext(loadConfig({ SVC_DATA: dataDir, ...env }), { engine, ...overrides })
  const app = appFor(ctx)
  return {
    ctx,
    engine,
    dataDir,
    async call(method, path, body, headers = {}) {
      const init: RequestInit = { method, headers: { host: "127.0.0.1:8080", ...headers } }
      if (body !== undefined) {
        init.body = typeof body === "string" || body instanceof Uint8Array || body instanceof ReadableStream ? (body as BodyInit) : JSON.stringify(body)
        ;(init.headers as Record<string, string>)["content-type"] ??= "application/json"
      }
      return (await app.fetch(new Request(`http://127.0.0.1:8080${path}`, init)))!
    },
    close: () => rmSync(dataDir, { recursive: true, force: true }),
  }
}

/** Serves a test app on a loopback port, for calls that need real HTTP: peer addresses, WebSockets, server-to-server calls. */
export function serveApp(t: TestApp): { url: string; port: number; stop(): void } {
  const app = appFor(t.ctx).listen({ hostname: "127.0.0.1", port: 0, maxRequestBodySize: Number.MAX_SAFE_INTEGER })
  const port = app.server!.port!
  return { url: `http://127.0.0.1:${port}`, port, stop: () => void app.stop(true) }
}
