// The catalog against the real service, engine and compose CLI: a Portainer list served over HTTP on
// loopback (a container template with every kind of variable, a stack template whose compose file
// lies in a repository of a local git server, hostile ones) and a folder of templates in a git
// repository; installs that run, a stack template's new commit shown as an update with its diff and
// applied through the guarded update, a stack saved as a template and installed again; a template
// binding / refused by the guard, a list too long and a repository with a symbolic link refused with
// the last good copy kept, a logo on a private address never fetched for a source not marked local.
import { afterAll, beforeAll, expect, test } from "bun:test"
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { Engine } from "#lib/engine/client.ts"
import { STACK_LABEL } from "#lib/engine/containers.ts"
import { cleanup, engineHost, realEngine, TEST_LABEL, testImage } from "../support/engine.ts"
import { git, startGitServer, type GitServer, type WorkTree } from "../support/git-server.ts"
import { startService, type Service } from "../support/service.ts"

const SLOW = 180_000
const IDLE = `["sh", "-c", "trap 'exit 0' TERM; while true; do sleep 0.2; done"]`
let engine: Engine
let svc: Service
let gitServer: GitServer
let stacksRepo: WorkTree
let folderRepo: WorkTree
let linkyRepo: WorkTree
let lists: ReturnType<typeof Bun.serve>
let list: unknown
const asked: string[] = []

const call = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${svc.url}/api${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  })
  const text = await res.text()
  return { status: res.status, body: text ? JSON.parse(text) : null }
}

const webCompose = (greeting: string) => `services:
  web:
    image: ${testImage()}
    command: ${IDLE}
    environment:
      GREETING: ${greeting}
      COLOUR: \${COLOUR}
    labels: { ${TEST_LABEL}: "1" }
    healthcheck:
      test: ["CMD", "true"]
      interval: 1s
      retries: 3
    volumes:
      - data:/data
volumes:
  data:
`

const containers = (name: string) => engine.listContainers({ filters: { label: [`${STACK_LABEL}=${name}`] } })
const envOf = async (name: string) => {
  const [c] = await containers(name)
  return ((await engine.inspectContainer(c!.Id)).Config as { Env: string[] }).Env
}

beforeAll(async () => {
  engine = realEngine()
  await cleanup(engine)
  gitServer = startGitServer()
  stacksRepo = await gitServer.repo("stacks")
  await stacksRepo.commit({ "web/compose.yaml": webCompose("one") })
  folderRepo = await gitServer.repo("folder")
  await folderRepo.commit({
    "templates/idle-folder/template.yaml": `title: Idle from a folder\ndescription: idles\ncategories: [test]\nversion: "1"\nlogo: logo.svg\nnote: "Say \${WORD}"\nvariables:\n  - {key: WORD, default: hello}\n  - {key: PIN, secret: true}\n`,
    "templates/idle-folder/compose.yaml": `services:\n  app:\n    image: ${testImage()}\n    command: ${IDLE}\n    environment: { WORD: "\${WORD}", PIN: "\${PIN}" }\n    labels: { ${TEST_LABEL}: "1" }\n`,
    "templates/idle-folder/logo.svg": '<svg xmlns="http://www.w3.org/2000/svg"/>',
  })
  linkyRepo = await gitServer.repo("linky")
  mkdirSync(join(linkyRepo.dir, "t"), { recursive: true })
  writeFileSync(join(linkyRepo.dir, "t/template.yaml"), "title: Linky\n")
  symlinkSync("/etc/passwd", join(linkyRepo.dir, "t/compose.yaml"))
  await git(linkyRepo.dir, "add", "-A")
  await git(linkyRepo.dir, "commit", "-q", "-m", "link")
  await git(linkyRepo.dir, "push", "-q", "origin", "HEAD:main")
  lists = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (req) => {
      asked.push(new URL(req.url).pathname)
      return Response.json(list)
    },
  })
  list = {
    version: "2",
    templates: [
      {
        type: 1,
        title: "Idle",
        description: "a container that idles",
        categories: ["test"],
        image: testImage(),
        command: "sh -c 'trap \"exit 0\" TERM; while true; do sleep 0.2; done'",
        labels: [{ name: TEST_LABEL, value: "1" }],
        env: [
          {
            name: "MODE",
            label: "Mode",
            select: [
              { text: "Fast", value: "fast" },
              { text: "Slow", value: "slow", default: true },
            ],
          },
          { name: "FIXED", preset: true, default: "$literal" },
          { name: "NAME", label: "Name", default: "idle" },
          { name: "API_TOKEN", label: "Token" },
        ],
        volumes: [{ container: "/data", bind: "/srv/idle-data" }],
      },
      {
        type: 3,
        title: "Web",
        description: "from a repository",
        repository: { url: stacksRepo.url, stackfile: "web/compose.yaml" },
        env: [{ name: "COLOUR", label: "Colour", default: "blue" }],
      },
      {
        type: 1,
        title: "Rooted",
        description: "binds /",
        image: testImage(),
        volumes: [{ container: "/host", bind: "/" }],
      },
    ],
  }
  svc = await startService({ DOCKER_HOST: engineHost(), SVC_UPDATE_WATCH: "3" })
}, SLOW)

afterAll(async () => {
  for (const name of ["hm-cat-idle", "hm-cat-web", "hm-cat-copy", "hm-cat-folder"])
    await call("DELETE", `/stacks/${name}?volumes=true`).catch(() => {})
  await svc.stop()
  lists.stop(true)
  gitServer.stop()
  await cleanup(engine)
}, SLOW)

test(
  "a Portainer list over HTTP and a folder in git are read; a repository with a link out of it is refused",
  async () => {
    const url = `http://127.0.0.1:${lists.port}/templates.json`
    const added = await call("POST", "/catalog/sources", { name: "lists", format: "portainer", url, local: true })
    expect(added.status).toBe(201)
    expect(added.body.last_read).toMatchObject({ ok: true, templates: 3 })
    const folder = await call("POST", "/catalog/sources", {
      name: "folder",
      format: "folder",
      git: { url: folderRepo.url, ref: "main", path: "templates" },
      local: true,
    })
    expect(folder.body.last_read).toMatchObject({ ok: true, templates: 1 })
    const linky = await call("POST", "/catalog/sources", {
      name: "linky",
      format: "folder",
      git: { url: linkyRepo.url, ref: "main", path: "t" },
      local: true,
    })
    expect(linky.body.last_read.ok).toBe(false)
    expect(linky.body.last_read.error).toContain("symbolic link")
    expect((await call("GET", "/catalog/templates?source=linky")).body).toEqual([])
  },
  SLOW,
)

test(
  "a container template installs with its variables: the choice, the preset, the default and a generated secret reach the container",
  async () => {
    const r = await call("POST", "/catalog/templates/lists/idle/install", {
      name: "hm-cat-idle",
      values: { NAME: "mine" },
    })
    expect(r.status).toBe(201)
    expect(r.body.stack.status).toBe("running")
    const token = r.body.generated.find((g: { key: string }) => g.key === "API_TOKEN").value
    const env = await envOf("hm-cat-idle")
    expect(env).toEqual(expect.arrayContaining(["MODE=slow", "FIXED=$literal", "NAME=mine", `API_TOKEN=${token}`]))
    expect(JSON.stringify((await call("GET", "/stacks/hm-cat-idle/env")).body)).not.toContain(token)
    expect(r.body.guard.volumes).toEqual(["hm-cat-idle_data"])
    expect((await engine.listVolumes({ label: [`${STACK_LABEL}=hm-cat-idle`] })).map((v) => v.Name)).toEqual([
      "hm-cat-idle_data",
    ])
  },
  SLOW,
)

test(
  "a stack template from a repository installs; a new commit is an update with its diff, applied through the guarded update",
  async () => {
    const r = await call("POST", "/catalog/templates/lists/web/install", {
      name: "hm-cat-web",
      values: { COLOUR: "red" },
    })
    expect(r.status).toBe(201)
    expect(await envOf("hm-cat-web")).toEqual(expect.arrayContaining(["GREETING=one", "COLOUR=red"]))
    expect((await call("GET", "/stacks/hm-cat-web/template")).body.update_available).toBe(false)
    await stacksRepo.commit({ "web/compose.yaml": webCompose("two") })
    expect((await call("POST", "/catalog/sources/lists/refresh")).body.last_read.ok).toBe(true)
    const status = (await call("GET", "/stacks/hm-cat-web/template")).body
    expect(status).toMatchObject({ update_available: true, edited: false })
    expect(status.diff).toContain("-      GREETING: one\n+      GREETING: two")
    const updated = await call("POST", "/stacks/hm-cat-web/template/update", { watch: 3 })
    expect(updated.status).toBe(200)
    expect(updated.body.stack.update.verdict).toBe("updated")
    expect(updated.body.stack.current_version).toBe(2)
    expect(await envOf("hm-cat-web")).toEqual(expect.arrayContaining(["GREETING=two", "COLOUR=red"]))
    expect((await call("GET", "/stacks/hm-cat-web/template")).body.update_available).toBe(false)
  },
  SLOW,
)

test(
  "a stack saved as a template installs again with new secrets; a folder template installs with its note",
  async () => {
    const saved = await call("POST", "/stacks/hm-cat-idle/as-template", { id: "idle-saved", title: "Idle saved" })
    expect(saved.status).toBe(201)
    expect(JSON.stringify(saved.body)).not.toMatch(/API_TOKEN: [A-Za-z0-9_-]{32}/)
    const again = await call("POST", "/catalog/templates/saved/idle-saved/install", { name: "hm-cat-copy" })
    expect(again.status).toBe(201)
    expect(again.body.stack.status).toBe("running")
    expect(await envOf("hm-cat-copy")).toEqual(expect.arrayContaining(["MODE=slow", "NAME=mine"]))
    const folder = await call("POST", "/catalog/templates/folder/idle-folder/install", { name: "hm-cat-folder" })
    expect(folder.status).toBe(201)
    expect(folder.body.note).toBe("Say hello")
    const logo = await fetch(`${svc.url}/api/catalog/logos/folder/idle-folder`)
    expect(logo.headers.get("content-type")).toBe("image/svg+xml")
  },
  SLOW,
)

test(
  "hostile: a bind of / is refused by the guard; a list too long keeps the last good copy; a private logo is never fetched",
  async () => {
    const rooted = await call("POST", "/catalog/templates/lists/rooted/install", { name: "hm-cat-rooted" })
    expect(rooted.status).toBe(400)
    expect(rooted.body.error.code).toBe("host_path_refused")
    expect((await containers("hm-cat-rooted")).length).toBe(0)

    list = {
      version: "3",
      templates: Array.from({ length: 5001 }, (_, i) => ({ type: 1, title: `T${i}`, image: "a:1" })),
    }
    const long = (await call("POST", "/catalog/sources/lists/refresh")).body
    expect(long.last_read.ok).toBe(false)
    expect(long.last_read.error).toContain("at most 5000")
    expect((await call("GET", "/catalog/templates?source=lists")).body).toHaveLength(3)

    // A template of a source not marked local (the service's own `saved`) naming a logo on loopback.
    const dir = join(svc.dataDir, "catalog/saved/far-logo")
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, "template.yaml"), `title: Far logo\nlogo: http://127.0.0.1:${lists.port}/logo.png\n`)
    writeFileSync(join(dir, "compose.yaml"), "services: {}\n")
    const logo = await call("GET", "/catalog/logos/saved/far-logo")
    expect(logo.status).toBe(404)
    expect(logo.body.error.message).toContain("private")
    expect(asked).not.toContain("/logo.png")
  },
  SLOW,
)
