import { afterEach, expect, test } from "bun:test"
import { stackApp } from "../../../../support/compose.ts"
import type { TestApp } from "../../../../support/app.ts"
import { bearer, withToken } from "../../../../support/token.ts"

let t: TestApp
afterEach(() => t.close())

const COMPOSE = `services:
  app:
    image: busybox:\${TAG}
    volumes: [data:/data, ./conf:/conf:ro, /cache]
volumes:
  data:
  shared:
    name: \${PREFIX}-shared
`

async function deployed() {
  t = await stackApp()
  withToken(t.dataDir)
  await t.ctx.stacks.deploy("web", {
    compose: COMPOSE,
    env: [
      { key: "TAG", value: "1", secret: false },
      { key: "PREFIX", value: "prod", secret: true },
    ],
  })
  await t.ctx.stacks.setEnv("web", [
    { key: "TAG", value: "1", secret: false },
    { key: "PREFIX", value: "prod", secret: true },
    { key: "NEW", value: "x", secret: false },
  ])
  return t
}

test("the whole stack: compose, environment with secrets in the clear, versions, images, mount inventory", async () => {
  await deployed()
  const res = await t.call("GET", "/api/stacks/web/export", undefined, bearer)
  expect(res.status).toBe(200)
  const doc = await res.json()
  const dir = t.ctx.stacks.dir("web")
  expect(doc).toMatchObject({
    format: "harbormaster.stack/1",
    name: "web",
    compose: COMPOSE,
    env: [
      { key: "TAG", value: "1", secret: false },
      { key: "PREFIX", value: "prod", secret: true },
      { key: "NEW", value: "x", secret: false },
    ],
    current_version: 1,
    images: ["busybox:1"],
    dir,
    mounts: {
      volumes: [
        {
          key: "data",
          name: "web_data",
          external: false,
          explicit_name: false,
          anonymous: false,
          mounts: [{ service: "app", target: "/data", read_only: false }],
        },
        { key: "shared", name: "prod-shared", external: false, explicit_name: true, anonymous: false, mounts: [] },
        { key: null, name: null, anonymous: true, mounts: [{ service: "app", target: "/cache", read_only: false }] },
      ],
      binds: [{ service: "app", source: `${dir}/conf`, target: "/conf", read_only: true }],
    },
  })
  expect(doc.versions).toHaveLength(1)
  expect(doc.versions[0]).toMatchObject({
    version: 1,
    action: "deploy",
    env: [
      { key: "TAG", value: "1" },
      { key: "PREFIX", value: "prod", secret: true },
    ],
  })
})

test("sizes=true measures the volumes with one throwaway container, removed afterwards", async () => {
  await deployed()
  await t.engine.createVolume("web_data")
  t.engine.addImage(["alpine:3"])
  t.engine.logs = async function* () {
    yield { stream: "stdout", ts: "", line: "12345\t/v/0" }
  }
  const doc = await (await t.call("GET", "/api/stacks/web/export?sizes=true", undefined, bearer)).json()
  expect(doc.mounts.volumes.map((v: any) => [v.name, v.size])).toEqual([
    ["web_data", 12345],
    ["prod-shared", null],
    [null, undefined],
  ])
  const creates = t.engine.calls.filter((c) => c.op === "createContainer")
  expect(creates).toHaveLength(1)
  expect(creates[0]!.args[0]).toMatchObject({
    Cmd: ["du", "-s", "-b", "/v/0"],
    HostConfig: { NetworkMode: "none", Mounts: [{ Source: "web_data", Target: "/v/0", ReadOnly: true }] },
  })
  expect(t.engine.containers.size).toBe(1) // the stack's own container; the measuring one is gone
})

test.each([
  ["no token", {}, "web", 401],
  ["an unknown stack", bearer, "nope", 404],
  ["an invalid name", bearer, "Web", 400],
])("%s is refused", async (_what, headers, name, status) => {
  await deployed()
  expect((await t.call("GET", `/api/stacks/${name}/export`, undefined, headers)).status).toBe(status)
})
