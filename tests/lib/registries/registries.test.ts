// The kept registries as the rest of the service uses them: the credentials of a pull, a run's own
// DOCKER_CONFIG (its images' registries only, removed after, left-overs of a dead process swept),
// what a copy sends a node and what the node keeps of it.
import { afterEach, expect, test } from "bun:test"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { readOpened } from "#lib/data/sealed.ts"
import { Registries, xRegistryAuth } from "#lib/registries/registries.ts"

let dir: string
afterEach(() => dir && rmSync(dir, { recursive: true, force: true }))

async function kept(o = {}) {
  dir = mkdtempSync(join(tmpdir(), "hm-registries-"))
  const r = new Registries(join(dir, "data"), o)
  await r.add({ name: "hub", address: "docker.io", username: "hubber", password: "hub-pw" })
  await r.add({ name: "team", address: "registry.lan/team", username: "t", password: "team-pw" })
  await r.add({ name: "team-b", address: "registry.lan/b", username: "b", password: "b-pw" })
  await r.add({ name: "ca-only", address: "private.lan", ca: null })
  return r
}

test("X-Registry-Auth is base64url of the JSON with its padding, as the engine decodes it", () => {
  const header = xRegistryAuth({ username: "u", password: "?>?>?>", serveraddress: "r" })
  expect(header).not.toMatch(/[+/]/)
  expect(header.length % 4).toBe(0)
  expect(JSON.parse(Buffer.from(header, "base64url").toString())).toMatchObject({ password: "?>?>?>" })
})

test("a pull's credentials: the kept registry of the reference; none for a registry kept without a user", async () => {
  const r = await kept()
  const auth = async (ref: string) => {
    const h = await r.engineAuth(ref)
    return h && JSON.parse(Buffer.from(h, "base64url").toString())
  }
  expect(await auth("nginx")).toEqual({ username: "hubber", password: "hub-pw", serveraddress: "docker.io" })
  expect(await auth("registry.lan/team/x")).toMatchObject({ username: "t" })
  expect(await auth("registry.lan/c/x")).toBeUndefined()
  expect(await auth("private.lan/x")).toBeUndefined()
  expect(await r.nameFor("private.lan/x")).toBe("ca-only")
})

test("a run's DOCKER_CONFIG holds its images' registries only, 0600 in 0700, the plugins linked, gone once closed", async () => {
  const docker = mkdtempSync(join(tmpdir(), "hm-docker-"))
  mkdirSync(join(docker, "cli-plugins"))
  const r = await kept({ dockerConfig: docker })
  const run = await r.runConfig(["registry.lan/team/app:1", "nginx:1", "quay.io/x", "registry.lan/team/db"])
  const config = JSON.parse(readFileSync(join(run.dir, "config.json"), "utf8"))
  expect(config).toEqual({
    auths: {
      "registry.lan": { auth: Buffer.from("t:team-pw").toString("base64") },
      "https://index.docker.io/v1/": { auth: Buffer.from("hubber:hub-pw").toString("base64") },
    },
  })
  expect(statSync(run.dir).mode & 0o777).toBe(0o700)
  expect(statSync(join(run.dir, "config.json")).mode & 0o777).toBe(0o600)
  expect(readlinkSync(join(run.dir, "cli-plugins"))).toBe(join(docker, "cli-plugins"))
  run.close()
  expect(existsSync(run.dir)).toBe(false)
  rmSync(docker, { recursive: true })

  const clash = r.runConfig(["registry.lan/team/a", "registry.lan/b/c"])
  await expect(clash).rejects.toMatchObject({ kind: "conflict", code: "registry_credentials_clash" })
})

test("a run folder left by a process that is gone is removed by the next run; a live one's stays", async () => {
  const r = await kept()
  const root = join(dir, "data", "secrets", "docker")
  mkdirSync(join(root, "999999999-left"), { recursive: true })
  mkdirSync(join(root, "1-live"), { recursive: true })
  const run = await r.runConfig([])
  expect(readdirSync(root).sort()).toEqual(["1-live", run.dir.split("/").pop()!].sort())
  run.close()
})

test("runs leave the data directory as they found it: the folders made for them go with the last one", async () => {
  // A kept registry's password keeps the secret store; only the runs' folder goes.
  const k = await kept()
  const run = await k.runConfig(["busybox"])
  run.close()
  expect(readdirSync(join(dir, "data", "secrets"))).toEqual(["registries.json"])
  // Nothing kept: no folder stays once the last of two runs open at once is closed.
  const data = join(dir, "bare")
  mkdirSync(data)
  const r = new Registries(data)
  const [a, b] = [await r.runConfig(["busybox"]), await r.runConfig(["busybox"])]
  a.close()
  expect(existsSync(b.dir)).toBe(true)
  b.close()
  expect(readdirSync(data)).toEqual([])
})

test("what a copy sends a node: the registries its images need, with their passwords; the node keeps them as its own secrets", async () => {
  const r = await kept()
  const sent = await r.forImages(["registry.lan/team/app", "busybox", "quay.io/x"])
  expect(sent).toEqual([
    { name: "team", address: "registry.lan/team", username: "t", password: "team-pw", ca: null, insecure: false },
    { name: "hub", address: "docker.io", username: "hubber", password: "hub-pw", ca: null, insecure: false },
  ])
  const nodeDir = join(dir, "node")
  const node = new Registries(nodeDir)
  await node.add({ name: "team", address: "elsewhere.lan", username: "n", password: "node-pw" })
  expect(await node.receive(sent)).toEqual({ stored: ["team-2", "hub"], kept: [] })
  expect(JSON.parse(readOpened(join(nodeDir, "secrets", "registries.json"))!)).toEqual({
    team: "node-pw",
    "team-2": "team-pw",
    hub: "hub-pw",
  })
  expect(readFileSync(join(nodeDir, "registries.json"), "utf8")).not.toContain("-pw")
})
