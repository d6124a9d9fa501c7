import { afterEach, expect, test } from "bun:test"
import { localDigests, MANIFEST_TYPES, parseChallenge, parseRef, remoteDigest } from "#lib/images/registry.ts"

test("references parse as the engine reads them", () => {
  expect(parseRef("nginx")).toEqual({ registry: "docker.io", repository: "library/nginx", tag: "latest" })
  expect(parseRef("bitnami/redis:7.2")).toEqual({ registry: "docker.io", repository: "bitnami/redis", tag: "7.2" })
  expect(parseRef("localhost:5000/team/app:v1")).toEqual({
    registry: "localhost:5000",
    repository: "team/app",
    tag: "v1",
  })
  expect(parseRef("ghcr.io/o/r")).toEqual({ registry: "ghcr.io", repository: "o/r", tag: "latest" })
  const digest = `sha256:${"a".repeat(64)}`
  expect(parseRef(`registry.example:443/x@${digest}`)).toEqual({
    registry: "registry.example:443",
    repository: "x",
    tag: "latest",
    digest,
  })
  for (const bad of ["UPPER", "a//b", "x:tag with space", "x@sha256:short"])
    expect(() => parseRef(bad)).toThrow("is not a valid image reference")
})

test("local digests are matched by repository, Docker Hub's short and long names alike", () => {
  const repoDigests = ["nginx@sha256:1", "docker.io/library/nginx@sha256:2", "127.0.0.1:5000/nginx@sha256:3"]
  expect(localDigests(parseRef("nginx:1.25"), repoDigests)).toEqual(["sha256:1", "sha256:2"])
  expect(localDigests(parseRef("127.0.0.1:5000/nginx"), repoDigests)).toEqual(["sha256:3"])
})

test("WWW-Authenticate challenges parse", () => {
  expect(
    parseChallenge(
      'Bearer realm="https://auth.docker.io/token",service="registry.docker.io",scope="repository:library/nginx:pull"',
    ),
  ).toEqual({
    realm: "https://auth.docker.io/token",
    service: "registry.docker.io",
    scope: "repository:library/nginx:pull",
  })
  expect(parseChallenge('Basic realm="x"')).toBeUndefined()
})

let server: ReturnType<typeof Bun.serve> | undefined
afterEach(() => server?.stop(true))

test("a registry that wants a token gets the anonymous bearer flow; HEAD carries every manifest type", async () => {
  const seen: { method: string; path: string; accept: string | null; auth: string | null }[] = []
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const url = new URL(req.url)
      seen.push({
        method: req.method,
        path: url.pathname + url.search,
        accept: req.headers.get("accept"),
        auth: req.headers.get("authorization"),
      })
      if (url.pathname === "/token") return Response.json({ token: `t-${url.searchParams.get("scope")}` })
      if (req.headers.get("authorization") !== "Bearer t-repository:team/app:pull")
        return new Response(null, {
          status: 401,
          headers: {
            "www-authenticate": `Bearer realm="http://127.0.0.1:${server!.port}/token",service="test-registry",scope="repository:team/app:pull"`,
          },
        })
      return new Response(null, { headers: { "docker-content-digest": "sha256:feed" } })
    },
  })
  expect(await remoteDigest(parseRef(`127.0.0.1:${server.port}/team/app:v2`), { insecure: [] })).toBe("sha256:feed")
  expect(seen.map((s) => [s.method, s.path])).toEqual([
    ["HEAD", "/v2/team/app/manifests/v2"],
    ["GET", "/token?service=test-registry&scope=repository%3Ateam%2Fapp%3Apull"],
    ["HEAD", "/v2/team/app/manifests/v2"],
  ])
  expect(seen[0]!.accept!.split(", ")).toEqual(MANIFEST_TYPES)
})

test("a registry that leaves the digest header out: the digest of the manifest as served", async () => {
  const manifest = '{"schemaVersion":2}'
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (req) => new Response(req.method === "HEAD" ? null : manifest),
  })
  const expected = `sha256:${new Bun.CryptoHasher("sha256").update(manifest).digest("hex")}`
  expect(await remoteDigest(parseRef(`localhost:${server.port}/app`), { insecure: [] })).toBe(expected)
})

test("an unknown tag is 404, a refusing or unreachable registry a clear 502", async () => {
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (req) => new Response(null, { status: new URL(req.url).pathname.includes("gone") ? 404 : 500 }),
  })
  await expect(remoteDigest(parseRef(`127.0.0.1:${server.port}/gone:1`), { insecure: [] })).rejects.toMatchObject({
    status: 404,
  })
  await expect(remoteDigest(parseRef(`127.0.0.1:${server.port}/app:1`), { insecure: [] })).rejects.toMatchObject({
    status: 502,
    message: expect.stringContaining("answered 500"),
  })
  const port = server.port
  server.stop(true)
  server = undefined
  await expect(remoteDigest(parseRef(`127.0.0.1:${port}/app:1`), { insecure: [] })).rejects.toMatchObject({
    status: 502,
    code: "registry_error",
  })
})
