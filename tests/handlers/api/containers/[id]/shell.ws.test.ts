import { afterEach, expect, test } from "bun:test"
import { serveApp, testApp, type TestApp } from "../../../../support/app.ts"

let t: TestApp
let server: ReturnType<typeof serveApp> | undefined
afterEach(() => {
  server?.stop()
  t.close()
})

async function serve(): Promise<string> {
  t = await testApp()
  server = serveApp(t)
  return server.url.replace("http:", "ws:")
}

test("opens sh with a TTY and its own detach keys, sizes it from the query, and echoes input", async () => {
  const base = await serve()
  t.engine.addContainer({ name: "web" })
  const ws = new WebSocket(`${base}/api/containers/web/shell?cols=90&rows=20`)
  ws.binaryType = "arraybuffer"
  const received: string[] = []
  ws.onmessage = (e) => received.push(new TextDecoder().decode(e.data as ArrayBuffer))
  await new Promise((r) => (ws.onopen = r))
  ws.send(new TextEncoder().encode("echo hi\n"))
  ws.send('{"type":"resize","cols":120,"rows":40}')
  while (!received.join("").includes("echo hi")) await Bun.sleep(5)
  while (t.engine.calls.filter((c) => c.op === "execResize").length < 2) await Bun.sleep(5)
  const exec = t.engine.calls.find((c) => c.op === "exec")!.args[1] as { cmd: string[]; tty: boolean; detachKeys: string }
  expect(exec).toMatchObject({ cmd: ["sh"], tty: true })
  expect(exec.detachKeys).not.toBe("ctrl-p,ctrl-q")
  expect(t.engine.calls.filter((c) => c.op === "execResize").map((c) => c.args.slice(1))).toEqual([[20, 90], [40, 120]])
  ws.close()
})

test("a stopped container refuses the upgrade with 409, an unknown one with 404", async () => {
  const base = await serve()
  t.engine.addContainer({ name: "old", state: "exited" })
  const http = base.replace("ws:", "http:")
  const upgrade = { connection: "Upgrade", upgrade: "websocket", "sec-websocket-version": "13", "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==" }
  const stopped = await fetch(`${http}/api/containers/old/shell`, { headers: upgrade })
  expect(stopped.status).toBe(409)
  expect((await stopped.json()).error.message).toContain("not running")
  expect((await fetch(`${http}/api/containers/nope/shell`, { headers: upgrade })).status).toBe(404)
})
