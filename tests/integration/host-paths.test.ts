// The host-path table (tests/support/host-path-cases.ts) end to end: the deploy handler of a real
// service context on the private engine (TEST_DOCKER_HOST), with the compose CLI the environment gives
// (v1 on the debian12 flavour, the v2 plugin through DOCKER_CONFIG on the current one). For each case:
// 400 host_path_refused (or compose's own 400 where the flavour lacks the feature), no container of
// the project on the engine, and the data directory, the stack folder included, as it was. Then a
// root that is one file: the engine's own socket deploys when it is the root, and only then.
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { STACK_LABEL } from "#lib/engine/containers.ts"
import type { Engine } from "#lib/engine/client.ts"
import { testApp, type TestApp } from "../support/app.ts"
import { treeChecksum } from "../support/checksum.ts"
import { realEngine, testImage } from "../support/engine.ts"
import { expectedCode, HOST_PATH_CASES, layOutside, type CaseDirs } from "../support/host-path-cases.ts"

const enabled = !!process.env.TEST_DOCKER_HOST
if (!enabled)
  console.warn("SKIPPED: tests/integration/host-paths.test.ts needs TEST_DOCKER_HOST (run it through scripts/test.sh)")

describe.skipIf(!enabled)("compose files reaching host paths outside the stack folder, on a real engine", () => {
  let app: TestApp
  let engine: Engine
  let base: string
  let dirs: Omit<CaseDirs, "stackDir">
  let flavour: "v1" | "v2"
  beforeAll(async () => {
    engine = realEngine()
    base = mkdtempSync(join(tmpdir(), "hm-host-paths-it-"))
    dirs = { outside: join(base, "outside"), root: join(base, "root") }
    layOutside(dirs.outside)
    mkdirSync(dirs.root)
    const env = Object.fromEntries(
      Object.entries({
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        DOCKER_CONFIG: process.env.DOCKER_CONFIG,
      }).filter((e): e is [string, string] => !!e[1]),
    )
    app = await testApp({ engine }, { ...env, DOCKER_HOST: process.env.TEST_DOCKER_HOST!, SVC_BIND_ROOTS: dirs.root })
    flavour = await app.ctx.compose.flavour()
    if (process.env.TEST_COMPOSE) expect(flavour).toBe(process.env.TEST_COMPOSE as "v1" | "v2")
  })
  afterAll(async () => {
    for (let i = 0; i < HOST_PATH_CASES.length; i++)
      for (const c of await engine.listContainers({ all: true, filters: { label: [`${STACK_LABEL}=probe-hp-${i}`] } }))
        await engine.removeContainer(c.Id, { force: true }).catch(() => {})
    app?.close()
    rmSync(base, { recursive: true, force: true })
  })

  HOST_PATH_CASES.forEach((c, i) =>
    test(c.name, async () => {
      const name = `probe-hp-${i}`
      const d = { ...dirs, stackDir: join(app.dataDir, "stacks", name) }
      c.setup?.(d)
      mkdirSync(join(app.dataDir, "stacks"), { recursive: true })
      const existed = existsSync(d.stackDir)
      const before = treeChecksum(app.dataDir)
      const res = await app.call("POST", "/api/stacks", { name, content: c.compose(d, testImage()), env: c.env ?? [] })
      const body = await res.json()
      expect([res.status, body.error?.code, body.error?.message]).toEqual([
        400,
        expectedCode(c, flavour),
        expect.any(String),
      ])
      expect(await engine.listContainers({ all: true, filters: { label: [`${STACK_LABEL}=${name}`] } })).toEqual([])
      expect(existsSync(d.stackDir)).toBe(existed)
      expect(treeChecksum(app.dataDir)).toBe(before)
    }, 60_000),
  )
})

describe.skipIf(!enabled)(
  "SVC_BIND_ROOTS naming one file: the engine's own socket, as Traefik or Dozzle mount it",
  () => {
    const socket = () => process.env.TEST_DOCKER_HOST!.replace(/^unix:\/\//, "")
    const compose = () =>
      `services:\n  probe:\n    image: ${testImage()}\n    command: ["sleep", "3600"]\n    volumes: ["${socket()}:/var/run/docker.sock:ro"]\n`
    const started: TestApp[] = []
    afterAll(() => started.forEach((t) => t.close()))
    async function serviceWith(root: string): Promise<TestApp> {
      const env = Object.fromEntries(
        Object.entries({
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          DOCKER_CONFIG: process.env.DOCKER_CONFIG,
        }).filter((e): e is [string, string] => !!e[1]),
      )
      const t = await testApp(
        { engine: realEngine() },
        { ...env, DOCKER_HOST: process.env.TEST_DOCKER_HOST!, SVC_BIND_ROOTS: root },
      )
      started.push(t)
      return t
    }

    test("a stack binding the socket deploys when the socket is a root; its container sees the engine", async () => {
      const t = await serviceWith(socket())
      const res = await t.call("POST", "/api/stacks", { name: "probe-sock", content: compose() })
      expect([res.status, (await res.json()).error]).toEqual([201, undefined])
      try {
        const [c] = await t.ctx.engine.listContainers({ filters: { label: [`${STACK_LABEL}=probe-sock`] } })
        expect(
          (await t.ctx.engine.inspectContainer(c!.Id)).Mounts.map((m: { Source: string; Destination: string }) => [
            m.Source,
            m.Destination,
          ]),
        ).toEqual([[socket(), "/var/run/docker.sock"]])
      } finally {
        expect((await t.call("DELETE", "/api/stacks/probe-sock")).status).toBe(200)
      }
    }, 120_000)

    test("the socket's folder is not opened by a file root beside it: 400 host_path_refused, nothing run", async () => {
      const other = join(dirname(socket()), "hm-other-root")
      writeFileSync(other, "")
      try {
        const t = await serviceWith(other)
        const res = await t.call("POST", "/api/stacks", { name: "probe-sock-other", content: compose() })
        expect([res.status, (await res.json()).error?.code]).toEqual([400, "host_path_refused"])
        expect(
          await t.ctx.engine.listContainers({ all: true, filters: { label: [`${STACK_LABEL}=probe-sock-other`] } }),
        ).toEqual([])
      } finally {
        rmSync(other, { force: true })
      }
    }, 120_000)
  },
)
