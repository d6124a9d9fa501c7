import { afterEach, expect, test } from "bun:test"
import { mkdtempSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { clusterFile, clusterToken } from "#lib/cluster/bearer.ts"
import { baseUrl, Cluster } from "#lib/cluster/membership.ts"

const dirs: string[] = []
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })))
const dataDir = () => dirs[dirs.push(mkdtempSync(join(tmpdir(), "hm-cluster-"))) - 1]!

test("minting makes a control plane with a random token, kept 0600, and retires the previous one", async () => {
  const dir = dataDir()
  const cluster = new Cluster(dir)
  expect(await cluster.role()).toBe("none")
  expect(await clusterToken(dir)).toBeUndefined()
  const first = cluster.mint()
  expect(first).toMatch(/^[A-Za-z0-9_-]{43}$/)
  expect(await cluster.role()).toBe("control-plane")
  expect(statSync(clusterFile(dir)).mode & 0o777).toBe(0o600)
  const second = cluster.mint()
  expect(second).not.toBe(first)
  expect(await clusterToken(dir)).toBe(second)
  cluster.forget()
  expect(await cluster.role()).toBe("none")
  expect(await clusterToken(dir)).toBeUndefined()
})

test("a member keeps the token it joined with as the cluster token", async () => {
  const dir = dataDir()
  const cluster = new Cluster(dir, () => Date.UTC(2026, 0, 2))
  cluster.save({ role: "member", token: "joined-with", control_plane_url: "http://cp:8080", name: "a" })
  expect(await clusterToken(dir)).toBe("joined-with")
  expect(await cluster.read()).toEqual({
    role: "member",
    token: "joined-with",
    control_plane_url: "http://cp:8080",
    name: "a",
    since: "2026-01-02T00:00:00.000Z",
  })
})

test("server URLs are normalised and anything but a plain http(s) base is refused", () => {
  expect(baseUrl("http://10.0.0.5:8080/", "x")).toBe("http://10.0.0.5:8080")
  expect(baseUrl("https://cp.example/hm/", "x")).toBe("https://cp.example/hm")
  for (const bad of ["cp:8080", "ftp://cp", "http://cp/?a=1", "http://u:p@cp", "not a url"])
    expect(() => baseUrl(bad, "control_plane_url")).toThrow(/body\.control_plane_url/)
})
