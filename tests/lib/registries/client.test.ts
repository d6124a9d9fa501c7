import { afterEach, expect, test } from "bun:test"
import { parseRef } from "#lib/engine/reference.ts"
import { login, MANIFEST_TYPES, parseChallenge, quotaOf, remoteDigest, type Quota } from "#lib/registries/client.ts"

let server: ReturnType<typeof Bun.serve> | undefined
afterEach(() => {
  server?.stop(true)
  server = undefined
})

interface Seen {
  method: string
  path: string
  accept: string | null
  auth: string | null
}

/** A registry on loopback answering `answer`; every request it saw. */
function serve(answer: (req: Request, url: URL) => Response | Promise<Response>): Seen[] {
  const seen: Seen[] = []
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
      return answer(req, url)
    },
  })
  return seen
}

const host = () => `127.0.0.1:${server!.port}`
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`

test("WWW-Authenticate challenges parse, Basic and Bearer alike", () => {
  expect(
    parseChallenge(
      'Bearer realm="https://auth.docker.io/token",service="registry.docker.io",scope="repository:library/nginx:pull"',
    ),
  ).toEqual({
    scheme: "bearer",
    params: {
      realm: "https://auth.docker.io/token",
      service: "registry.docker.io",
      scope: "repository:library/nginx:pull",
    },
  })
  expect(parseChallenge('Basic realm="x"')).toEqual({ scheme: "basic", params: { realm: "x" } })
  expect(parseChallenge("")).toBeUndefined()
})

test("Docker Hub's quota headers read as a count and a window", () => {
  const headers = new Headers({ "ratelimit-limit": "100;w=21600", "ratelimit-remaining": "76;w=21600" })
  expect(quotaOf(headers, Date.parse("2026-11-28T00:00:00Z"))).toEqual({
    limit: 100,
    remaining: 76,
    window_seconds: 21600,
    checked_at: "2026-11-28T00:00:00.000Z",
  })
  expect(quotaOf(new Headers(), 0)).toBeUndefined()
})

test("anonymous: a registry that wants a token gets the bearer flow with no credentials; HEAD carries every manifest type", async () => {
  const seen = serve((req, url) => {
    if (url.pathname === "/token") return Response.json({ token: `t-${url.searchParams.get("scope")}` })
    if (req.headers.get("authorization") !== "Bearer t-repository:team/app:pull")
      return new Response(null, {
        status: 401,
        headers: {
          "www-authenticate": `Bearer realm="http://${host()}/token",service="test-registry",scope="repository:team/app:pull"`,
        },
      })
    return new Response(null, { headers: { "docker-content-digest": "sha256:feed" } })
  })
  const endpoint = { host: host(), insecure: true }
  expect(await remoteDigest(endpoint, parseRef(`${host()}/team/app:v2`))).toBe("sha256:feed")
  expect(seen.map((s) => [s.method, s.path, s.auth])).toEqual([
    ["HEAD", "/v2/team/app/manifests/v2", null],
    ["GET", "/token?service=test-registry&scope=repository%3Ateam%2Fapp%3Apull", null],
    ["HEAD", "/v2/team/app/manifests/v2", "Bearer t-repository:team/app:pull"],
  ])
  expect(seen[0]!.accept!.split(", ")).toEqual(MANIFEST_TYPES)
})

test("with credentials the token service gets them as Basic, with the account; the registry only the token", async () => {
  const seen = serve((req, url) => {
    if (url.pathname === "/token")
      return req.headers.get("authorization") === basic("alice", "pa:ss")
        ? Response.json({ access_token: "tok-alice" })
        : Response.json({ details: "incorrect username or password" }, { status: 401 })
    if (req.headers.get("authorization") !== "Bearer tok-alice")
      return new Response(null, {
        status: 401,
        headers: { "www-authenticate": `Bearer realm="http://${host()}/token",service="svc"` },
      })
    return new Response(null, { headers: { "docker-content-digest": "sha256:abc" } })
  })
  const endpoint = { host: host(), insecure: true, username: "alice", password: "pa:ss" }
  expect(await remoteDigest(endpoint, parseRef(`${host()}/team/app:1`))).toBe("sha256:abc")
  expect(seen[1]).toMatchObject({
    path: "/token?service=svc&scope=repository%3Ateam%2Fapp%3Apull&account=alice",
    auth: basic("alice", "pa:ss"),
  })
  expect(seen.filter((s) => s.path.startsWith("/v2/")).map((s) => s.auth)).toEqual([null, "Bearer tok-alice"])

  const refused = await remoteDigest({ ...endpoint, password: "wrong" }, parseRef(`${host()}/team/app:1`)).catch(
    (err) => err,
  )
  expect(refused).toMatchObject({ kind: "upstream", code: "registry_unauthorized" })
  expect(refused.message).toBe(
    `the token service of registry ${host()} (${host()}) refused user alice (401): incorrect username or password`,
  )
})

test("Basic: the credentials go once the registry asks; none kept, or refused, is an error naming the registry", async () => {
  serve((req) =>
    req.headers.get("authorization") === basic("bob", "s3cret")
      ? Response.json({})
      : Response.json(
          { errors: [{ code: "UNAUTHORIZED", message: "authentication required" }] },
          { status: 401, headers: { "www-authenticate": 'Basic realm="hm"' } },
        ),
  )
  expect(await login({ host: host(), insecure: true, username: "bob", password: "s3cret" })).toEqual({
    auth: "basic",
    status: 200,
    message: "logged in with Basic authentication as user bob",
  })
  await expect(login({ host: host(), insecure: true })).rejects.toMatchObject({
    code: "registry_unauthorized",
    message: `registry ${host()} asks for a user name and password (Basic) and none is kept for it`,
  })
  const wrong = login({ host: host(), insecure: true, username: "bob", password: "nope-nope" })
  await expect(wrong).rejects.toMatchObject({
    code: "registry_unauthorized",
    message: `registry ${host()} refused the credentials of user bob: UNAUTHORIZED: authentication required`,
  })
})

test("a token the registry refuses (expired) is an error naming the registry and the token", async () => {
  serve((req, url) => {
    if (url.pathname === "/token") return Response.json({ token: "stale" })
    return Response.json(
      { errors: [{ code: "UNAUTHORIZED", message: "token expired" }] },
      { status: 401, headers: { "www-authenticate": `Bearer realm="http://${host()}/token",service="s"` } },
    )
  })
  await expect(login({ host: host(), insecure: true, username: "u", password: "p" })).rejects.toMatchObject({
    code: "registry_unauthorized",
    message: expect.stringMatching(
      /^registry 127\.0\.0\.1:\d+ refused the token its token service issued .*token expired/,
    ),
  })
})

test("a 429 is a rate limit naming the registry with the quota it reported; every quota seen is heard", async () => {
  let remaining = 1
  serve(() => {
    const headers = { "ratelimit-limit": "100;w=21600", "ratelimit-remaining": `${remaining};w=21600` }
    if (remaining-- > 0) return new Response(null, { headers: { ...headers, "docker-content-digest": "sha256:1" } })
    return Response.json(
      { errors: [{ code: "TOOMANYREQUESTS", message: "You have reached your pull rate limit." }] },
      { status: 429, headers: { ...headers, "retry-after": "120" } },
    )
  })
  const heard: Quota[] = []
  const o = { onQuota: (_: string, q: Quota) => void heard.push(q) }
  const ref = parseRef(`${host()}/app:1`)
  expect(await remoteDigest({ host: host(), insecure: true }, ref, o)).toBe("sha256:1")
  const limited = remoteDigest({ host: host(), insecure: true }, ref, o)
  await expect(limited).rejects.toMatchObject({
    kind: "rate_limited",
    code: "registry_rate_limited",
    retryAfter: 120,
    message: expect.stringContaining(
      `registry ${host()} refused HEAD /v2/app/manifests/1: too many requests (429, 0 pulls left)`,
    ),
  })
  expect(heard.map((q) => q.remaining)).toEqual([1, 0])
})

test("a registry that leaves the digest header out: the digest of the manifest as served", async () => {
  const manifest = '{"schemaVersion":2}'
  serve((req) => new Response(req.method === "HEAD" ? null : manifest))
  const expected = `sha256:${new Bun.CryptoHasher("sha256").update(manifest).digest("hex")}`
  expect(await remoteDigest({ host: host(), insecure: true }, parseRef(`localhost:${server!.port}/app`))).toBe(expected)
})

test("an unknown tag is 404, a refusing or unreachable registry a clear upstream error", async () => {
  serve((_, url) => new Response(null, { status: url.pathname.includes("gone") ? 404 : 500 }))
  const e = { host: host(), insecure: true }
  await expect(remoteDigest(e, parseRef(`${host()}/gone:1`))).rejects.toMatchObject({
    kind: "not_found",
    code: "image_not_found",
  })
  await expect(remoteDigest(e, parseRef(`${host()}/app:1`))).rejects.toMatchObject({
    kind: "upstream",
    message: expect.stringContaining("answered 500"),
  })
  const gone = host()
  server!.stop(true)
  await expect(remoteDigest(e, parseRef(`${gone}/app:1`))).rejects.toMatchObject({
    kind: "upstream",
    code: "registry_unreachable",
    message: expect.stringContaining(`registry ${gone} is unreachable`),
  })
})

test("a registry said to speak TLS is never spoken to over plain http", async () => {
  serve(() => Response.json({}))
  await expect(login({ host: host(), insecure: false })).rejects.toMatchObject({ kind: "upstream" })
})
