// The shell's WebSocket bridge, with the test playing the exec's side: what the service forwards to the
// shell, what it sends back to the client, and how each side's end closes the other. The real sh in a
// real container is in tests/integration/host.test.ts; backpressure in tests/lib/engine/shell.test.ts.
import { afterEach, expect, test } from "bun:test"
import { HANG_UP, HANG_UP_AGAIN_MS } from "#lib/engine/shell.ts"
import { serveApp, testApp, type TestApp } from "../../../../support/app.ts"
import { terminal } from "../../../../support/terminal.ts"

let t: TestApp
let server: ReturnType<typeof serveApp> | undefined
afterEach(() => {
  server?.stop()
  t.close()
})

const text = (d: Uint8Array | string) => (typeof d === "string" ? d : new TextDecoder().decode(d))

/** A running container whose shell the test plays: the exec records what it is written and sends what the test gives it. */
async function shellOf(exitCode: number) {
  t = await testApp()
  server = serveApp(t)
  t.engine.addContainer({ name: "web" })
  const written: string[] = []
  let closed = false
  let out!: ReadableStreamDefaultController<Uint8Array>
  const output = new ReadableStream<Uint8Array>({ start: (c) => void (out = c) })
  const exec = t.engine.exec.bind(t.engine)
  t.engine.exec = async (container, o) => ({
    ...(await exec(container, o)),
    output,
    write: (d) => void written.push(text(d)),
    close: () => void (closed = true),
  })
  t.engine.execInspect = async () => ({ ExitCode: exitCode, Running: false })
  const s = await terminal(`${server.url.replace("http:", "ws:")}/api/containers/web/shell?cols=90&rows=20`)
  return { ...s, written, exited: () => closed, say: (b: Uint8Array) => out.enqueue(b), end: () => out.close() }
}

async function until(ok: () => boolean) {
  for (let i = 0; i < 400 && !ok(); i++) await Bun.sleep(5)
  expect(ok()).toBe(true)
}

test("opens sh with a TTY and its own detach keys, sized from the query; keystrokes reach it as sent, a resize frame resizes", async () => {
  const s = await shellOf(0)
  const exec = t.engine.calls.find((c) => c.op === "exec")!.args[1] as {
    cmd: string[]
    tty: boolean
    detachKeys: string
  }
  expect(exec).toMatchObject({ cmd: ["sh"], tty: true })
  expect(exec.detachKeys).not.toBe("ctrl-p,ctrl-q")
  s.type("ls\x1b[A\n")
  s.ws.send('{"type":"resize","cols":120,"rows":40}')
  // text that is not a valid resize is typed, as the terminal's paste would be
  s.ws.send("echo hi")
  s.ws.send('{"type":"resize","cols":0,"rows":5}')
  await until(() => s.written.length === 3)
  expect(s.written).toEqual(["ls\x1b[A\n", "echo hi", '{"type":"resize","cols":0,"rows":5}'])
  expect(t.engine.calls.filter((c) => c.op === "execResize").map((c) => c.args.slice(1))).toEqual([
    [20, 90],
    [40, 120],
  ])
  s.ws.close()
})

test("the shell's bytes come back as binary frames, unchanged, even when they are not UTF-8", async () => {
  const s = await shellOf(0)
  const frames: unknown[] = []
  s.ws.addEventListener("message", (e) => frames.push(e.data))
  const bytes = new Uint8Array([0x24, 0x20, 0xff, 0x00, 0xc3])
  s.say(bytes)
  await until(() => frames.length === 1)
  expect(frames[0]).toBeInstanceOf(ArrayBuffer)
  expect(new Uint8Array(frames[0] as ArrayBuffer)).toEqual(bytes)
  s.ws.close()
})

test("the shell ending closes the socket normally with its exit code", async () => {
  const s = await shellOf(7)
  s.end()
  const close = await s.closed
  expect([close.code, close.reason]).toEqual([1000, "exit 7"])
  expect(s.exited()).toBe(true)
})

test("the client going away hangs the shell up twice, then ends the exec", async () => {
  const s = await shellOf(0)
  s.ws.close()
  await until(() => s.written.length === 1)
  expect(s.written).toEqual([HANG_UP])
  expect(s.exited()).toBe(false)
  await Bun.sleep(HANG_UP_AGAIN_MS)
  await until(() => s.exited())
  expect(s.written).toEqual([HANG_UP, HANG_UP])
})

test("a stopped container refuses the upgrade with 409, an unknown one with 404", async () => {
  t = await testApp()
  server = serveApp(t)
  t.engine.addContainer({ name: "old", state: "exited" })
  const upgrade = {
    connection: "Upgrade",
    upgrade: "websocket",
    "sec-websocket-version": "13",
    "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
  }
  const stopped = await fetch(`${server.url}/api/containers/old/shell`, { headers: upgrade })
  expect(stopped.status).toBe(409)
  expect((await stopped.json()).error.message).toContain("not running")
  expect((await fetch(`${server.url}/api/containers/nope/shell`, { headers: upgrade })).status).toBe(404)
  expect(t.engine.calls.some((c) => c.op === "exec")).toBe(false)
})
