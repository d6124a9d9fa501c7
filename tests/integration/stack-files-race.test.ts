// A stack's container rewrites the stack's folder while the service works in it: bound at /stack, it
// swaps `conf` (the folder of the stack file conf/app.conf) and `data/d` between a real folder and a
// symlink to a folder of this test's own that stands in for the host. The link's target is an
// absolute path, and the service resolves it on the host, where it is the stand-in. PUTs and GETs of
// conf/app.conf and of data/d/f through the race: none writes to or reads from the stand-in, every
// answer is 2xx or a clear 4xx. Then the service starts again over the same data, with a `loop -> ..`
// link and a link to the stand-in (holding a stale temp file) in the stack's data: it starts, and the
// stand-in is left as it was.
import { afterAll, beforeAll, expect, test } from "bun:test"
import { lstatSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Engine } from "#lib/engine/client.ts"
import { treeChecksum } from "../support/checksum.ts"
import { cleanup, engineHost, realEngine, TEST_LABEL, testImage } from "../support/engine.ts"
import { startService, type Service } from "../support/service.ts"

const NAME = "hm-race"
const HOST = "host stand-in\n"
let engine: Engine
let svc: Service
let dataDir: string
let host: string

/** Swaps each path between its real folder and a link to the stand-in, as fast as busybox can. */
const swapScript = `trap 'exit 0' TERM
cd /stack
mkdir -p data/d && echo inside > data/d/f
ln -s .. data/loop
ln -s "$1" data/host
n=0
while :; do
  n=$((n + 1))
  for p in conf data/d; do
    mv -T "$p" "$p.real" 2>/dev/null
    ln -s "$1" "$p" 2>/dev/null
    rm "$p" 2>/dev/null
    # A folder the service made while the name was free goes aside.
    mv -T "$p.real" "$p" 2>/dev/null || mv -T "$p" "$p.made-$n" 2>/dev/null
  done
done
`

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(`${svc.url}${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  })
  const text = await res.text()
  return { status: res.status, body: (text ? JSON.parse(text) : null) as any }
}

const env = () => ({ DOCKER_HOST: engineHost() })

beforeAll(async () => {
  engine = realEngine()
  await cleanup(engine)
  dataDir = mkdtempSync(join(tmpdir(), "hm-race-data-"))
  host = mkdtempSync(join(tmpdir(), "hm-hostfolder-"))
  svc = await startService(env(), { dataDir })
}, 120_000)

afterAll(async () => {
  await call("DELETE", `/api/stacks/${NAME}`).catch(() => {})
  await cleanup(engine)
  await svc.stop()
  rmSync(dataDir, { recursive: true, force: true })
  rmSync(host, { recursive: true, force: true })
}, 120_000)

test("PUTs and GETs through a container swapping folders and links to the host: none reaches the host, none is a 500; the service starts again over the links", async () => {
  const dead = Bun.spawn(["true"])
  await dead.exited
  for (const f of ["f", "app.conf", `passwd.tmp-${dead.pid}-abc`]) writeFileSync(join(host, f), HOST)
  const before = treeChecksum(host)

  const content = `services:
  swap:
    image: ${testImage()}
    command: ["sh", "/stack/swap.sh", "${host}"]
    volumes: [".:/stack"]
    labels: { ${TEST_LABEL}: "1" }
`
  const deployed = await call("POST", "/api/stacks", {
    name: NAME,
    content,
    files: { "conf/app.conf": "v0\n", "swap.sh": swapScript },
  })
  expect([deployed.status, deployed.body.error]).toEqual([201, undefined])
  const stackDir = join(dataDir, "stacks", NAME)
  for (
    const deadline = Date.now() + 30_000;
    !lstatSync(join(stackDir, "data", "host"), { throwIfNoEntry: false }) && Date.now() < deadline;
  )
    await Bun.sleep(100)
  expect(lstatSync(join(stackDir, "data", "host")).isSymbolicLink()).toBe(true)

  const answers: string[] = []
  const reads: string[] = []
  for (let i = 0; i < 40; i++) {
    for (const p of ["conf/app.conf", "data/d/f"]) {
      const put = await call("PUT", `/api/stacks/${NAME}/files/${p}`, { content: `put ${i}\n` })
      const got = await call("GET", `/api/stacks/${NAME}/files/${p}`)
      answers.push(
        `PUT ${p} ${put.status} ${put.body?.error?.code ?? ""}`,
        `GET ${p} ${got.status} ${got.body?.error?.code ?? ""}`,
      )
      if (got.status === 200) reads.push(got.body.content)
    }
  }
  const tally = Object.entries(Object.groupBy(answers, (a) => a)).map(([a, n]) => `${a}: ${n!.length}`)
  console.log(tally.join("\n"))
  expect(answers.filter((a) => !/ [24]\d\d /.test(a))).toEqual([])
  expect(reads.filter((r) => r === HOST)).toEqual([])
  expect(answers.some((a) => a.startsWith("PUT conf/app.conf 200"))).toBe(true)
  expect(treeChecksum(host)).toBe(before)

  // Started again over the same data while the container keeps swapping: the sweep passes the links by.
  await svc.stop()
  svc = await startService(env(), { dataDir })
  expect((await call("GET", `/api/stacks/${NAME}`)).status).toBe(200)
  expect(treeChecksum(host)).toBe(before)
}, 300_000)
