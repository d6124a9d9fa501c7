import { afterAll, expect, test } from "bun:test"
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { parse } from "yaml"
import { readModel } from "#lib/stacks/model.ts"
import { allowedIn, checkHostPaths, filesComposeReads } from "#lib/stacks/host-paths.ts"

const base = mkdtempSync(join(tmpdir(), "hm-host-paths-"))
const projectDir = join(base, "stacks", "web")
const shared = join(base, "shared")
mkdirSync(join(projectDir, "data"), { recursive: true })
mkdirSync(shared)
afterAll(() => rmSync(base, { recursive: true, force: true }))

const check =
  (paths: string[], roots: string[] = []) =>
  () =>
    checkHostPaths(
      paths.map((path) => ({ where: "test", path })),
      projectDir,
      roots,
    )

test("every host path of compose's model (v2 JSON) is found", () => {
  const model = readModel(
    {
      services: {
        app: {
          image: "x",
          volumes: [
            { type: "bind", source: join(projectDir, "data"), target: "/data", bind: { create_host_path: true } },
            { type: "bind", source: "/srv", target: "/srv" },
            { type: "volume", source: "named", target: "/n", volume: {} },
          ],
          build: {
            context: join(projectDir, "src"),
            dockerfile: "../Dockerfile",
            additional_contexts: { more: "/opt/ctx", img: "docker-image://alpine" },
            ssh: ["default=/root/.ssh/id"],
          },
          develop: { watch: [{ path: "/etc", action: "sync", target: "/x" }] },
        },
      },
      volumes: {
        named: { name: "web_named" },
        dev: { name: "web_dev", driver_opts: { type: "none", o: "bind", device: "/mnt/dev" } },
        nfs: { name: "web_nfs", driver_opts: { type: "nfs", o: "addr=10.0.0.1", device: ":/export" } },
        rel: { name: "web_rel", driver_opts: { o: "bind", device: "./x" } },
      },
      secrets: { s: { name: "web_s", file: join(projectDir, "s.txt") } },
      configs: { c: { name: "web_c", file: "/etc/c.conf" } },
    },
    "v2",
    { project: "web", projectDir },
  )
  expect(model.hostPaths.map((h) => [h.where, h.path])).toEqual([
    ["volume dev device", "/mnt/dev"],
    ["volume rel device", "./x"],
    ["secrets s file", join(projectDir, "s.txt")],
    ["configs c file", "/etc/c.conf"],
    ["service app volumes", join(projectDir, "data")],
    ["service app volumes", "/srv"],
    ["service app build context", join(projectDir, "src")],
    ["service app build dockerfile", join(projectDir, "Dockerfile")],
    ["service app build context more", "/opt/ctx"],
    ["service app build ssh", "/root/.ssh/id"],
    ["service app develop watch", "/etc"],
  ])
  expect(model.binds.map((b) => [b.source, b.data])).toEqual([
    [join(projectDir, "data"), true],
    ["/srv", false],
  ])
})

test("v1's model: short syntax, and a relative device resolved against the folder v1 ran in", () => {
  const cwd = join(base, "scratch")
  const model = readModel(
    parse(
      `services:\n  app:\n    image: x\n    volumes:\n    - ${projectDir}/data:/data:rw\n    - named:/n:ro\n    - /anon\nvolumes:\n  named: {}\n  dev:\n    driver_opts: {device: ${cwd}/dev, o: bind, type: none}\n`,
    ),
    "v1",
    { project: "web", projectDir, cwd },
  )
  expect(model.hostPaths.map((h) => h.path)).toEqual([join(projectDir, "dev"), join(projectDir, "data")])
  expect(model.volumes.map((v) => [v.key, v.name, v.mounts.length])).toEqual([
    ["named", "web_named", 1],
    ["dev", "web_dev", 0],
    [null, null, 1],
  ])
})

test("paths inside the stack's folder pass, whether they exist yet or not", () => {
  expect(check([join(projectDir, "data"), join(projectDir, "new/deeper")])).not.toThrow()
})

test("/, /etc, a path leading out, a root's neighbour and a relative path are refused", () => {
  for (const path of ["/", "/etc", join(projectDir, "../.."), `${shared}-evil`, "./x"])
    expect(check([path], [shared])).toThrow("host path")
})

test("a symlink inside the stack folder that leads out is followed and refused", () => {
  symlinkSync("/etc", join(projectDir, "data", "escape"))
  expect(check([join(projectDir, "data/escape/passwd")])).toThrow("outside")
})

test("SVC_BIND_ROOTS lets a stack reach under the roots it names; / allows any", () => {
  expect(check([`${shared}/sub`], [shared])).not.toThrow()
  expect(check(["/etc"], ["/"])).not.toThrow()
})

test("a root that is a file or a socket allows exactly that path: neither what would lie under it nor its folder", () => {
  const file = join(shared, "docker.sock")
  writeFileSync(file, "")
  const socket = join(shared, "engine.sock")
  const server = Bun.listen({ unix: socket, socket: { data() {} } })
  try {
    for (const root of [file, socket]) {
      expect(check([root], [root])).not.toThrow()
      for (const path of [`${root}/x`, shared, join(shared, "other"), `${root}-evil`])
        expect(check([path], [root])).toThrow("host path")
    }
    symlinkSync(socket, join(base, "linked.sock"))
    expect(check([socket], [join(base, "linked.sock")])).not.toThrow() // a root through a link is the file it leads to
  } finally {
    server.stop(true)
  }
})

test("the files compose reads while loading are found in the file: env_file, extends, include (merge keys, defaults, nested files)", async () => {
  writeFileSync(join(projectDir, "base.yaml"), `services:\n  base:\n    image: x\n    env_file: ../../leak.env\n`)
  const text = `x-e: &e\n  env_file: \${NOPE:-\${ALSO:-/etc/passwd}}\ninclude:\n  - path: ./inc.yaml\n    env_file: [./inc.env]\nservices:\n  app:\n    image: x\n    <<: *e\n    extends: {file: ./base.yaml, service: base}\n  b:\n    image: x\n    env_file: [{path: ~/b.env}]\n`
  const paths = await filesComposeReads(text, {
    env: {},
    dir: projectDir,
    allowed: allowedIn(projectDir, []),
    runnerEnv: { HOME: "/home/runner" },
  })
  expect(paths.map((p) => [p.where.replace(projectDir, "<dir>"), p.path.replace(projectDir, "<dir>")])).toEqual([
    ["include env_file", "<dir>/inc.env"],
    ["include", "<dir>/inc.yaml"],
    ["service app env_file", "/etc/passwd"],
    ["service app extends", "<dir>/base.yaml"],
    ["<dir>/base.yaml: service base env_file", join(base, "leak.env")],
    ["service b env_file", "/home/runner/b.env"],
  ])
})

test("an env_file entry with required: false (or a variable that reads false) is marked optional", async () => {
  const text = `services:\n  app:\n    image: x\n    env_file:\n      - path: ./a.env\n        required: false\n      - path: ./b.env\n        required: \${OPT:-false}\n      - path: ./c.env\n        required: true\n      - ./d.env\n`
  const paths = await filesComposeReads(text, {
    env: {},
    dir: projectDir,
    allowed: allowedIn(projectDir, []),
    runnerEnv: {},
  })
  expect(paths.map((p) => [p.path.replace(projectDir, "<dir>"), p.optional ?? false])).toEqual([
    ["<dir>/a.env", true],
    ["<dir>/b.env", true],
    ["<dir>/c.env", false],
    ["<dir>/d.env", false],
  ])
})

test("a file compose would read that does not parse, an alias bomb among them, is refused before compose runs", async () => {
  const bomb = ['x-a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
  for (let i = 1; i < 9; i++)
    bomb.push(
      `x-${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9)
        .fill(`*${String.fromCharCode(96 + i)}`)
        .join(",")}]`,
    )
  writeFileSync(join(projectDir, "bomb.yaml"), `services:\n  base:\n    image: x\n${bomb.join("\n")}\n`)
  writeFileSync(join(projectDir, "broken.yaml"), "services: [\n")
  for (const [file, message] of [
    ["bomb.yaml", /alias/],
    ["broken.yaml", /does not parse/],
  ] as const) {
    const text = `services:\n  app:\n    image: x\n    extends: {file: ./${file}, service: base}\n`
    const refused = await filesComposeReads(text, {
      env: {},
      dir: projectDir,
      allowed: allowedIn(projectDir, []),
      runnerEnv: {},
    }).then(
      () => undefined,
      (err: unknown) => err,
    )
    expect(refused).toMatchObject({ kind: "invalid", code: "invalid_compose" })
    expect((refused as Error).message).toStartWith(join(projectDir, file))
    expect((refused as Error).message).toMatch(message)
  }
})

test("a file compose would read with more top-level keys than compose handles in reasonable time is refused", async () => {
  writeFileSync(
    join(projectDir, "wide.yaml"),
    `services:\n  base:\n    image: x\n${Array.from({ length: 300 }, (_, i) => `x-k${i}: 1`).join("\n")}\n`,
  )
  const text = "services:\n  app:\n    image: x\n    extends: {file: ./wide.yaml, service: base}\n"
  const refused = await filesComposeReads(text, {
    env: {},
    dir: projectDir,
    allowed: allowedIn(projectDir, []),
    runnerEnv: {},
  }).then(
    () => undefined,
    (err: unknown) => err,
  )
  expect(refused).toMatchObject({ kind: "invalid", code: "invalid_compose" })
  expect((refused as Error).message).toBe(`${join(projectDir, "wide.yaml")} has 301 top-level keys; at most 256`)
})
