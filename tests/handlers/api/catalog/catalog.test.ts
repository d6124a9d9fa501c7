// The catalog's routes over the fake engine and the fake compose CLI: the shipped catalog listed and
// searched, a template's form checked field by field, a preview that changes nothing, an install (the
// stack, its record, its policy, its secrets shown once), a second install of the name refused, a
// Portainer list served on loopback (refused for a source not marked local, read when it is; a
// malformed one keeps the last good copy and says why), a container template binding / refused by
// the guard, a stack saved as a template with its secrets left out, and its update with the diff;
// with a backup repository kept (restic on a folder), installs join its schedule unless told not to.
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { stackDirs } from "#lib/stacks/name.ts"
import { stackApp } from "../../../support/compose.ts"
import { watchFileReads } from "../../../support/file-reads.ts"
import type { TestApp } from "../../../support/app.ts"
import type { FakeCompose } from "../../../support/compose.ts"

let t: TestApp & { compose: FakeCompose }
let served: ReturnType<typeof Bun.serve>
let list: unknown = null

const json = async (res: Response) => ({ status: res.status, body: await res.json() })
const call = async (method: string, path: string, body?: unknown) => json(await t.call(method, `/api${path}`, body))

const portainer = (templates: unknown[]) => ({ version: "3", templates })

beforeAll(async () => {
  t = await stackApp()
  served = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (req) =>
      new URL(req.url).pathname === "/logo.png"
        ? new Response(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]), {
            headers: { "content-type": "image/png" },
          })
        : typeof list === "string"
          ? new Response(list)
          : Response.json(list),
  })
})
afterAll(() => {
  served.stop(true)
  t.close()
})

describe("the shipped catalog", () => {
  test("lists at least 25 apps, each with a title, categories and a logo served here; searched and filtered", async () => {
    const all = await call("GET", "/catalog/templates?source=curated")
    expect(all.status).toBe(200)
    expect(all.body.length).toBeGreaterThanOrEqual(25)
    for (const s of all.body) {
      expect(s.categories.length).toBeGreaterThan(0)
      expect(s.logo).toBe(`/api/catalog/logos/curated/${s.id}`)
      expect(s.version).toBeTruthy()
    }
    const found = await call("GET", "/catalog/templates?q=password%20manager")
    expect(found.body.map((x: { id: string }) => x.id)).toEqual(["vaultwarden"])
    const dns = await call("GET", "/catalog/templates?category=dns")
    expect(dns.body.map((x: { id: string }) => x.id).sort()).toEqual(["adguard-home", "pihole"])
    const logo = await t.call("GET", "/api/catalog/logos/curated/vaultwarden")
    expect(logo.headers.get("content-type")).toBe("image/svg+xml")
    expect(logo.headers.get("content-security-policy")).toContain("sandbox")
    expect(await logo.text()).toStartWith("<svg")
  })

  test("a template's form: its variables with types, choices and secrets", async () => {
    const { body } = await call("GET", "/catalog/templates/curated/paperless-ngx")
    const v = Object.fromEntries(body.variables.map((x: { key: string }) => [x.key, x]))
    expect(v.PORT).toMatchObject({ type: "port", default: "8000", secret: false })
    expect(v.OCR_LANGUAGE.choices.map((c: { value: string }) => c.value)).toContain("deu")
    expect(v.SECRET_KEY).toMatchObject({ secret: true, generate: true, default: null })
    expect(body.compose).toContain("paperless-ngx:2.13.5")
  })
})

describe("install", () => {
  test("wrong values are named field by field; nothing is checked or written", async () => {
    const before = t.compose.configCalls.length
    const r = await call("POST", "/catalog/templates/curated/paperless-ngx/preview", {
      name: "docs",
      values: { PORT: "70000", OCR_LANGUAGE: "klingon", NOPE: "x" },
    })
    expect(r.status).toBe(400)
    expect(r.body.error.code).toBe("invalid_values")
    expect(Object.keys(r.body.fields).sort()).toEqual(["NOPE", "OCR_LANGUAGE", "PORT"])
    expect(t.compose.configCalls.length).toBe(before)
  })

  test("the preview shows the compose file and the guard's model, hides secrets, and writes nothing", async () => {
    const r = await call("POST", "/catalog/templates/curated/vaultwarden/preview", {
      name: "vault",
      values: { PORT: "8090" },
    })
    expect(r.status).toBe(200)
    expect(r.body.guard).toMatchObject({ ok: true, services: ["vaultwarden"], images: ["vaultwarden/server:1.32.7"] })
    expect(r.body.guard.ports).toEqual([{ port: 8090, protocol: "tcp", ip: "" }])
    expect(r.body.env.find((e: { key: string }) => e.key === "ADMIN_TOKEN")).toEqual({
      key: "ADMIN_TOKEN",
      value: null,
      secret: true,
      generated: true,
    })
    expect(r.body.update_policy).toMatchObject({ auto_update: "apply" })
    expect(r.body.backup).toBeNull()
    expect(t.ctx.stacks.has("vault")).toBe(false)
  })

  test("an install deploys a stack that remembers its template, sets the policy, shows the generated secret once", async () => {
    const r = await call("POST", "/catalog/templates/curated/vaultwarden/install", { name: "vault" })
    expect(r.status).toBe(201)
    expect(r.body.stack).toMatchObject({ name: "vault", current_version: 1 })
    expect(r.body.installed).toMatchObject({ source: "curated", id: "vaultwarden", version: "1.32.7" })
    const [secret] = r.body.generated
    expect(secret.key).toBe("ADMIN_TOKEN")
    expect(secret.value).toMatch(/^[A-Za-z0-9_-]{32}$/)
    const env = await call("GET", "/stacks/vault/env")
    expect(env.body.find((e: { key: string }) => e.key === "ADMIN_TOKEN")).toEqual({
      key: "ADMIN_TOKEN",
      value: null,
      secret: true,
    })
    expect(JSON.stringify(env.body)).not.toContain(secret.value)
    expect((await call("GET", "/stacks/vault/policy")).body).toMatchObject({
      auto_update: "apply",
      schedule: "0 4 * * *",
    })
    const status = await call("GET", "/stacks/vault/template")
    expect(status.body).toMatchObject({ update_available: false, edited: false, diff: "" })
    const again = await call("POST", "/catalog/templates/curated/vaultwarden/install", { name: "vault" })
    expect(again.status).toBe(409)
  })
})

describe("sources", () => {
  const url = () => `http://127.0.0.1:${served.port}/templates.json`
  const one = {
    type: 1,
    title: "Whoami",
    description: "echo",
    image: "traefik/whoami:v1.10",
    ports: ["8088:80/tcp"],
    logo: `http://127.0.0.1:${0}/logo.png`,
    env: [
      {
        name: "MODE",
        label: "Mode",
        select: [
          { text: "A", value: "a", default: true },
          { text: "B", value: "b" },
        ],
      },
      { name: "DB_PASSWORD", label: "password", default: "changeme" },
    ],
    volumes: [{ container: "/data", bind: "/srv/whoami" }],
  }

  test("a list on a private address is refused unless the source is marked local; then read", async () => {
    list = portainer([{ ...one, logo: `http://127.0.0.1:${served.port}/logo.png` }])
    const far = await call("POST", "/catalog/sources", { name: "far", format: "portainer", url: url() })
    expect(far.status).toBe(201)
    expect(far.body.last_read).toMatchObject({ ok: false })
    expect(far.body.last_read.error).toContain("private")
    const near = await call("POST", "/catalog/sources", { name: "near", format: "portainer", url: url(), local: true })
    expect(near.body.last_read).toMatchObject({ ok: true, templates: 1, error: null })
    const d = await call("GET", "/catalog/templates/near/whoami")
    expect(d.body.kind).toBe("container")
    expect(d.body.compose).toContain("${PORT_80}:80/tcp")
    expect(d.body.compose).toContain("source: data")
    expect(d.body.warnings.join(" ")).toContain("/srv/whoami became the named volume data")
    const v = Object.fromEntries(d.body.variables.map((x: { key: string }) => [x.key, x]))
    expect(v.MODE).toMatchObject({
      default: "a",
      choices: [
        { value: "a", label: "A" },
        { value: "b", label: "B" },
      ],
    })
    expect(v.DB_PASSWORD).toMatchObject({ secret: true, generate: true, default: null })
    const logo = await t.call("GET", "/api/catalog/logos/near/whoami")
    expect(logo.status).toBe(200)
    expect(logo.headers.get("content-type")).toBe("image/png")
  })

  test("a malformed list keeps the last good copy and says why", async () => {
    list = '{"version": "3", "templates": [ {"type": 1, '
    const r = await call("POST", "/catalog/sources/near/refresh")
    expect(r.body.last_read).toMatchObject({ ok: false })
    expect(r.body.last_read.error).toContain("not JSON")
    expect(r.body.last_good).toBeTruthy()
    expect((await call("GET", "/catalog/templates?source=near")).body.map((x: { id: string }) => x.id)).toEqual([
      "whoami",
    ])
  })

  test("a template binding / is refused by the guard in the preview and at install", async () => {
    list = portainer([
      { type: 1, title: "Root", description: "x", image: "busybox:1.36", volumes: [{ container: "/host", bind: "/" }] },
    ])
    expect((await call("POST", "/catalog/sources/near/refresh")).body.last_read.ok).toBe(true)
    const p = await call("POST", "/catalog/templates/near/root/preview", { name: "rooted" })
    expect(p.body.guard).toMatchObject({ ok: false, code: "host_path_refused" })
    expect(p.body.blockers[0]).toContain("guard refuses")
    const i = await call("POST", "/catalog/templates/near/root/install", { name: "rooted" })
    expect(i.status).toBe(400)
    expect(t.ctx.stacks.has("rooted")).toBe(false)
  })
})

describe("save as template, and its update", () => {
  test("a stack saved as a template leaves its secrets out; a changed template shows its diff and applies", async () => {
    const compose =
      "services:\n  app:\n    image: busybox:1.36\n    environment:\n      API_TOKEN: hunter2-literal\n      MODE: ${MODE}\n"
    expect(
      (
        await call("POST", "/stacks", {
          name: "mine",
          content: compose,
          env: [
            { key: "MODE", value: "fast" },
            { key: "DB_PASSWORD", value: "s3cret-value", secret: true },
          ],
        })
      ).status,
    ).toBe(201)
    const saved = await call("POST", "/stacks/mine/as-template", { title: "Mine" })
    expect(saved.status).toBe(201)
    const text = JSON.stringify(saved.body)
    expect(text).not.toContain("s3cret-value")
    expect(text).not.toContain("hunter2-literal")
    expect(saved.body.files["compose.yaml"]).toContain("API_TOKEN: ${API_TOKEN}")
    expect(saved.body.secrets).toEqual(["API_TOKEN"])
    const d = await call("GET", "/catalog/templates/saved/mine")
    const v = Object.fromEntries(d.body.variables.map((x: { key: string }) => [x.key, x]))
    expect(v.MODE).toMatchObject({ default: "fast", secret: false })
    expect(v.DB_PASSWORD).toMatchObject({ secret: true, generate: true, default: null })
    expect(v.API_TOKEN).toMatchObject({ secret: true, generate: true })

    const installed = await call("POST", "/catalog/templates/saved/mine/install", { name: "copy", backup: null })
    expect(installed.status).toBe(201)
    expect(installed.body.generated.map((g: { key: string }) => g.key).sort()).toEqual(["API_TOKEN", "DB_PASSWORD"])

    await call("PUT", "/stacks/mine/env", [
      { key: "MODE", value: "fast" },
      { key: "DB_PASSWORD", value: null },
      { key: "EXTRA", value: "1" },
    ])
    expect((await call("POST", "/stacks/mine/as-template", { title: "Mine" })).status).toBe(409)
    expect((await call("POST", "/stacks/mine/as-template", { title: "Mine", replace: true })).status).toBe(201)
    const status = await call("GET", "/stacks/copy/template")
    expect(status.body.update_available).toBe(true)
    expect(status.body.new_variables.map((x: { key: string }) => x.key)).toEqual(["EXTRA"])
    const updated = await call("POST", "/stacks/copy/template/update", { watch: 0 })
    expect(updated.status).toBe(200)
    expect(updated.body.stack.current_version).toBe(2)
    expect((await call("GET", "/stacks/copy/template")).body.update_available).toBe(false)
    expect((await call("GET", "/stacks/copy/env")).body.map((e: { key: string }) => e.key).sort()).toEqual([
      "API_TOKEN",
      "DB_PASSWORD",
      "EXTRA",
      "MODE",
    ])
  })
})

describe("backups from the first minute", () => {
  test("with a backup repository kept, an install adds the app to its schedule unless told not to", async () => {
    const added = await t.call("POST", "/api/backups/repos", {
      name: "local",
      repository: `${t.dataDir}/restic`,
      password: "pw-catalog-backup",
      init: true,
    })
    expect(added.status).toBe(201)
    const stacksOf = async () =>
      (await call("GET", "/backups/repos")).body.find((r: { name: string }) => r.name === "local")
    // A repository without a schedule gets a nightly one for the app alone; the next app joins it.
    const first = await call("POST", "/catalog/templates/curated/vaultwarden/install", { name: "pw" })
    expect([first.status, first.body.backup]).toEqual([201, { repository: "local", schedule: "0 3 * * *" }])
    expect(await stacksOf()).toMatchObject({ schedule: "0 3 * * *", stacks: ["pw"] })
    const second = await call("POST", "/catalog/templates/curated/memos/install", { name: "notes" })
    expect([second.status, second.body.backup]).toEqual([201, { repository: "local", schedule: "0 3 * * *" }])
    expect((await stacksOf()).stacks).toEqual(["pw", "notes"])
    const none = await call("POST", "/catalog/templates/curated/uptime-kuma/install", { name: "up", backup: null })
    expect([none.status, none.body.backup]).toEqual([201, null])
    expect((await stacksOf()).stacks).toEqual(["pw", "notes"])
  }, 60_000)
})

describe("what a stack was installed from", () => {
  test("is read once: a source's refresh asks no stack's files after; it follows an update and goes with its stack", async () => {
    list = portainer([{ type: 1, title: "Whoami", description: "echo", image: "traefik/whoami:v1.10" }])
    expect((await call("POST", "/catalog/sources/near/refresh")).body.last_read.ok).toBe(true)
    const reads = watchFileReads([stackDirs(t.dataDir).records])
    try {
      expect((await call("POST", "/catalog/sources/near/refresh")).body.last_read.ok).toBe(true)
      expect(reads.paths()).toEqual([])
      expect((await call("GET", "/stacks/copy/template")).body).toMatchObject({ update_available: false })
    } finally {
      reads.stop()
    }
    expect((await call("DELETE", "/stacks/copy")).status).toBe(200)
    const plain = { name: "copy", content: "services:\n  app:\n    image: busybox:1.36\n" }
    expect((await call("POST", "/stacks", plain)).status).toBe(201)
    const none = await call("GET", "/stacks/copy/template")
    expect([none.status, none.body.error.code]).toEqual([404, "no_template"])
  })
})
