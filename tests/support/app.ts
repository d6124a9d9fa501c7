// A handler-test harness: the real app over a fake engine and a temp data directory. Every answer is
// checked against its route's `response` schema: a call that gets one off its schema throws, and so
// does `close()` when an app served on a port (serveApp) answered one.
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createApp } from "#lib/service/app.ts"
import { loadConfig } from "#lib/service/config.ts"
import { createContext, type Ctx } from "#lib/service/context.ts"
import { FakeEngine } from "./fake-engine.ts"
import { routes } from "../../routes.gen.ts"

/** The app over the real route manifest, as server.ts builds it; `onDrift` hears of every answer off its route's schema. */
export const appFor = (ctx: Ctx, onDrift?: (message: string) => void) => createApp(ctx, routes, undefined, onDrift)

/** Throws with the answers off their schema seen so far, if any. */
function failOnDrift(drifts: string[]): void {
  const seen = drifts.splice(0)
  if (seen.length) throw new Error(`answers off their schema:\n${seen.join("\n")}`)
}

export interface TestApp {
  ctx: Ctx
  engine: FakeEngine
  dataDir: string
  /** Answers off their route's schema not yet reported. */
  drifts: string[]
  /** Calls the app like a curl client on loopback would. */
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Response>
  close(): void
}

export async function testApp(overrides: Partial<Ctx> = {}, env: Record<string, string> = {}): Promise<TestApp> {
  const dataDir = mkdtempSync(join(tmpdir(), "hm-data-"))
  const engine = new FakeEngine()
  const ctx = await createContext(loadConfig({ SVC_DATA: dataDir, ...env }), { engine, ...overrides })
  const drifts: string[] = []
  const app = appFor(ctx, (message) => void drifts.push(message))
  return {
    ctx,
    engine,
    dataDir,
    drifts,
    async call(method, path, body, headers = {}) {
      const init: RequestInit = { method, headers: { host: "127.0.0.1:8080", ...headers } }
      if (body !== undefined) {
        init.body =
          typeof body === "string" || body instanceof Uint8Array || body instanceof ReadableStream
            ? (body as BodyInit)
            : JSON.stringify(body)
        ;(init.headers as Record<string, string>)["content-type"] ??= "application/json"
      }
      const res = (await app.fetch(new Request(`http://127.0.0.1:8080${path}`, init)))!
      failOnDrift(drifts)
      return res
    },
    close() {
      rmSync(dataDir, { recursive: true, force: true })
      failOnDrift(drifts)
    },
  }
}

/** Serves a test app on a loopback port, for calls that need real HTTP: peer addresses, WebSockets, server-to-server calls. */
export function serveApp(t: TestApp): { url: string; port: number; stop(): void } {
  const server = appFor(t.ctx, (message) => void t.drifts.push(message)).listen({
    hostname: "127.0.0.1",
    port: 0,
    maxRequestBodySize: Number.MAX_SAFE_INTEGER,
  })
  const port = server.port!
  return { url: `http://127.0.0.1:${port}`, port, stop: () => void server.stop(true) }
}
