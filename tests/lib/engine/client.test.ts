import { afterAll, expect, test } from "bun:test"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { API_NEWEST, compareApi, dockerEngine, negotiate, pruneFilters } from "#lib/engine/client.ts"
import { DomainError } from "#lib/errors/errors.ts"

test("API versions order by their minor number", () => {
  expect(compareApi("1.9", "1.41")).toBeLessThan(0)
  expect(compareApi("1.52", "1.52")).toBe(0)
  expect(compareApi("1.45", "1.44")).toBeGreaterThan(0)
})

test("the spoken version is the newest both sides know", () => {
  expect(negotiate("1.41")).toBe("1.41")
  expect(negotiate("1.45")).toBe("1.45")
  expect(negotiate("1.99")).toBe(API_NEWEST)
  expect(() => negotiate("1.40")).toThrow(/speaks API 1.40 at most/)
})

// An engine on a unix socket that serves a version range and refuses the rest with Docker's own words.
const dir = mkdtempSync(join(tmpdir(), "hm-engine-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
function engineServing(min: string, max: string) {
  const seen: string[] = []
  const socket = join(dir, `${min}-${max}.sock`)
  const server = Bun.serve({
    unix: socket,
    fetch(req) {
      const path = new URL(req.url).pathname
      seen.push(path)
      if (path === "/_ping") return new Response("OK", { headers: { "API-Version": max } })
      const v = /^\/v([\d.]+)\//.exec(path)?.[1] ?? max
      if (compareApi(v, min) < 0)
        return Response.json(
          {
            message: `client version ${v} is too old. Minimum supported API version is ${min}, please upgrade your client to a newer version`,
          },
          { status: 400 },
        )
      return Response.json({ Version: "x", ApiVersion: max, MinAPIVersion: min })
    },
  })
  return { host: `unix://${socket}`, seen, stop: () => server.stop(true) }
}

test("a current engine is asked its range once and spoken to at its newest version", async () => {
  const e = engineServing("1.44", "1.45")
  const engine = dockerEngine(e.host)
  await Promise.all([engine.version(), engine.info(), engine.version()])
  expect(await engine.apiVersion()).toBe("1.45")
  expect(e.seen.filter((p) => p === "/_ping")).toHaveLength(1)
  expect(e.seen.filter((p) => p !== "/_ping").every((p) => p.startsWith("/v1.45/"))).toBe(true)
  e.stop()
})

test("DOCKER_API_VERSION pins the version; an engine refusing it is a 503 naming both versions", async () => {
  const e = engineServing("1.44", "1.45")
  const err = await dockerEngine(e.host, "1.41")
    .version()
    .catch((x) => x)
  expect(err).toBeInstanceOf(DomainError)
  expect(err).toMatchObject({ kind: "unavailable", code: "engine_unsupported" })
  expect(err.message).toContain("refused API 1.41 (it serves 1.44 and newer)")
  expect(e.seen).not.toContain("/_ping")
  e.stop()
})

test("an engine older than the oldest version spoken is a 503, not a stack trace", async () => {
  const e = engineServing("1.12", "1.40")
  const err = await dockerEngine(e.host)
    .info()
    .catch((x) => x)
  expect(err).toMatchObject({ kind: "unavailable", code: "engine_unsupported" })
  expect(err.message).toContain("speaks API 1.40 at most")
  e.stop()
})

test("an engine replaced under the service is asked again", async () => {
  const old = engineServing("1.12", "1.41")
  const engine = dockerEngine(old.host)
  expect(await engine.apiVersion()).toBe("1.41")
  old.stop()
  await expect(engine.version()).rejects.toMatchObject({ kind: "unavailable", code: "engine_unavailable" })
  const socket = old.host.slice("unix://".length)
  rmSync(socket, { force: true })
  const server = Bun.serve({
    unix: socket,
    fetch: (req) =>
      new URL(req.url).pathname === "/_ping"
        ? new Response("OK", { headers: { "API-Version": "1.45" } })
        : Response.json({ path: new URL(req.url).pathname }),
  })
  expect(await engine.info()).toEqual({ path: "/v1.45/info" })
  server.stop(true)
})

test("a volume prune asks for named volumes too where the API would skip them", () => {
  expect(pruneFilters("volumes", "1.41")).toBeUndefined()
  expect(pruneFilters("volumes", "1.42")).toEqual({ all: ["true"] })
  expect(pruneFilters("volumes", "1.52")).toEqual({ all: ["true"] })
  expect(pruneFilters("images", "1.45")).toEqual({ dangling: ["false"] })
  expect(pruneFilters("containers", "1.45")).toBeUndefined()
})

// An engine that answers a pull as Docker does: progress lines, or the registry's refusal inside the 200
// stream (Docker 20.10) or as a 500 (the containerd store), in the words real engines used.
function pullingEngine(answer: (ref: string) => Response) {
  const seen: { path: string; auth: string | null }[] = []
  const socket = join(dir, `pull-${seen.length}-${Math.random()}.sock`)
  const server = Bun.serve({
    unix: socket,
    fetch(req) {
      const url = new URL(req.url)
      if (url.pathname === "/_ping") return new Response("OK", { headers: { "API-Version": "1.45" } })
      seen.push({ path: url.pathname + url.search, auth: req.headers.get("x-registry-auth") })
      return answer(url.searchParams.get("fromImage") ?? url.pathname)
    },
  })
  return { host: `unix://${socket}`, seen, stop: () => server.stop(true) }
}

test("a pull and a push carry the X-Registry-Auth the resolver finds for the reference; none is {}", async () => {
  const e = pullingEngine(() => new Response('{"status":"Pulling"}\n{"status":"Digest: sha256:1"}\n'))
  const asked: string[] = []
  const engine = dockerEngine(e.host, undefined, async (ref) => {
    asked.push(ref)
    return ref.startsWith("registry.lan") ? "eyJ1c2VybmFtZSI6ImEifQ==" : undefined
  })
  const lines: string[] = []
  await engine.pullImage("registry.lan:5000/team/app:1", (l) => lines.push(l))
  await engine.pullImage("busybox")
  await engine.pushImage("registry.lan:5000/team/app:1")
  expect(asked).toEqual(["registry.lan:5000/team/app:1", "busybox", "registry.lan:5000/team/app:1"])
  expect(e.seen.map((s) => s.auth)).toEqual(["eyJ1c2VybmFtZSI6ImEifQ==", btoa("{}"), "eyJ1c2VybmFtZSI6ImEifQ=="])
  expect(e.seen[1]!.path).toBe("/v1.45/images/create?fromImage=busybox&tag=latest")
  expect(lines).toEqual(["Pulling", "Digest: sha256:1"])
  e.stop()
})

test("a registry's refusal of a pull is an error naming the registry, whichever way the engine reports it", async () => {
  const said: Record<string, Response> = {
    "registry.lan:5000/a": new Response(
      '{"errorDetail":{"message":"unauthorized: authentication required"},"error":"unauthorized: authentication required"}\n',
    ),
    "registry.lan:5000/b": Response.json(
      { message: 'Head "https://registry.lan:5000/v2/b/manifests/latest": no basic auth credentials' },
      { status: 500 },
    ),
    "docker.io/library/c": Response.json(
      {
        message:
          "toomanyrequests: You have reached your pull rate limit. You may increase the limit by authenticating and upgrading",
      },
      { status: 500 },
    ),
    "registry.lan:5000/d": Response.json(
      {
        message:
          'failed to resolve reference "registry.lan:5000/d:latest": failed to do request: Head "https://registry.lan:5000/v2/d/manifests/latest": tls: failed to verify certificate: x509: certificate signed by unknown authority',
      },
      { status: 500 },
    ),
    "registry.lan:5000/e": Response.json(
      { message: 'Get "https://registry.lan:5000/v2/": dial tcp 10.0.0.1:5000: connect: connection refused' },
      { status: 500 },
    ),
    "registry.lan:5000/f": Response.json(
      { message: "manifest for registry.lan:5000/f:latest not found: manifest unknown: manifest unknown" },
      { status: 404 },
    ),
    "registry.lan:5000/g": Response.json({ message: "some other failure" }, { status: 500 }),
  }
  const e = pullingEngine((ref) => said[ref]!.clone())
  const engine = dockerEngine(e.host)
  const failure = (ref: string) =>
    engine.pullImage(ref).then(
      () => undefined,
      (err) => err,
    )
  expect(await failure("registry.lan:5000/a")).toMatchObject({
    kind: "upstream",
    code: "registry_unauthorized",
    message: expect.stringMatching(/^registry registry\.lan:5000 refused the credentials/),
  })
  expect(await failure("registry.lan:5000/b")).toMatchObject({ code: "registry_unauthorized" })
  expect(await failure("docker.io/library/c")).toMatchObject({
    kind: "rate_limited",
    code: "registry_rate_limited",
    message: expect.stringMatching(/^registry docker\.io refused: too many requests/),
  })
  expect(await failure("registry.lan:5000/d")).toMatchObject({
    code: "registry_tls",
    message: expect.stringContaining("/etc/docker/certs.d/registry.lan:5000/ca.crt"),
  })
  expect(await failure("registry.lan:5000/e")).toMatchObject({ code: "registry_unreachable" })
  expect(await failure("registry.lan:5000/f")).toMatchObject({ kind: "not_found", code: "image_not_found" })
  expect(await failure("registry.lan:5000/g")).toMatchObject({ kind: "upstream", code: "engine_error" })
  e.stop()
})
