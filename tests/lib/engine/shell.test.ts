import { expect, test } from "bun:test"
import type { ExecSession } from "#lib/engine/client.ts"
import { HANG_UP, HANG_UP_AGAIN_MS, resizeMessage, shellSession } from "#lib/engine/shell.ts"

function fakeExec() {
  let controller!: ReadableStreamDefaultController<Uint8Array>
  const written: (string | Uint8Array)[] = []
  let closed = 0
  const exec: ExecSession = {
    id: "e1",
    output: new ReadableStream({ start: (c) => void (controller = c) }),
    write: (d) => void written.push(d),
    close: () => void closed++,
  }
  return {
    exec,
    written,
    emit: (s: string) => controller.enqueue(new TextEncoder().encode(s)),
    end: () => controller.close(),
    closed: () => closed,
  }
}

function fakePeer(answers: number[] = []) {
  const sent: string[] = []
  const closes: [number?, string?][] = []
  return {
    sent,
    closes,
    peer: {
      send: (d: string | Uint8Array) => (sent.push(new TextDecoder().decode(d as Uint8Array)), answers.shift() ?? 1),
      close: (c?: number, r?: string) => void closes.push([c, r]),
    },
  }
}

const tick = () => Bun.sleep(5)

test("resize messages are JSON with positive whole cols and rows; anything else is input", () => {
  expect(resizeMessage('{"type":"resize","cols":120,"rows":40}')).toEqual({ cols: 120, rows: 40 })
  expect(resizeMessage('{"type":"resize","cols":0,"rows":40}')).toBeUndefined()
  expect(resizeMessage('{"type":"other"}')).toBeUndefined()
  expect(resizeMessage("{ not json")).toBeUndefined()
  expect(resizeMessage("ls\n")).toBeUndefined()
})

test("bytes flow both ways, resize goes to the exec, and the exec ending closes the socket with its exit code", async () => {
  const x = fakeExec()
  const p = fakePeer()
  const sizes: unknown[] = []
  const session = shellSession(
    x.exec,
    (s) => sizes.push(s),
    async () => 3,
  )
  session.open(p.peer)
  session.message(new TextEncoder().encode("ls\n"))
  session.message("pwd\n")
  session.message('{"type":"resize","cols":100,"rows":30}')
  x.emit("$ ")
  await tick()
  expect(p.sent).toEqual(["$ "])
  expect(x.written.map((w) => (typeof w === "string" ? w : new TextDecoder().decode(w)))).toEqual(["ls\n", "pwd\n"])
  expect(sizes).toEqual([{ cols: 100, rows: 30 }])
  x.end()
  await tick()
  expect(p.closes).toEqual([[1000, "exit 3"]])
  expect(x.closed()).toBe(1)
})

test("reading pauses while the socket is backpressured and resumes on drain", async () => {
  const x = fakeExec()
  const p = fakePeer([-1])
  const session = shellSession(
    x.exec,
    () => {},
    async () => 0,
  )
  session.open(p.peer)
  x.emit("one")
  x.emit("two")
  await tick()
  expect(p.sent).toEqual(["one"])
  session.drain!()
  await tick()
  expect(p.sent).toEqual(["one", "two"])
})

test("the socket closing hangs the shell up (twice) and ends the exec, also while waiting for a drain", async () => {
  const x = fakeExec()
  const p = fakePeer([-1])
  const session = shellSession(
    x.exec,
    () => {},
    async () => 0,
  )
  session.open(p.peer)
  x.emit("one")
  await tick()
  session.close()
  await tick()
  expect(x.written).toEqual([HANG_UP])
  await Bun.sleep(HANG_UP_AGAIN_MS + 20)
  expect(x.written).toEqual([HANG_UP, HANG_UP])
  expect(x.closed()).toBe(1)
  expect(p.closes).toEqual([])
})
