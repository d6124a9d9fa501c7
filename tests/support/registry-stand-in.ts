// A registry stand-in on loopback for handler tests: the registry API's login (`GET /v2/`) and
// manifest HEAD behind Basic authentication or a bearer token from its own token service, with a
// pull quota in Docker Hub's headers and a switch to answer 429. The integration tests use the real
// distribution registry (tests/support/private-registry.ts).

export interface StandIn {
  host: string
  /** Every request: method, path and Authorization. */
  seen: { method: string; path: string; auth: string | null }[]
  /** Pulls left; past 0 the stand-in answers 429. Null: it sends no quota headers. */
  remaining: number | null
  stop(): void
}

export function registryStandIn(o: {
  auth: "basic" | "bearer" | "none"
  users?: Record<string, string>
  digest?: string
  remaining?: number | null
  /** Bearer: an anonymous token is let in too (Docker Hub's public images). */
  anonymous?: boolean
}): StandIn {
  const users = o.users ?? {}
  const basicOk = (header: string | null) => {
    if (!header?.startsWith("Basic ")) return false
    const [user, ...rest] = Buffer.from(header.slice(6), "base64").toString().split(":")
    return users[user!] !== undefined && users[user!] === rest.join(":")
  }
  const self: StandIn = {
    host: "",
    seen: [],
    remaining: o.remaining ?? null,
    stop: () => server.stop(true),
  }
  const quota = (): Record<string, string> =>
    self.remaining === null
      ? {}
      : { "ratelimit-limit": "100;w=21600", "ratelimit-remaining": `${Math.max(self.remaining, 0)};w=21600` }
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const url = new URL(req.url)
      const auth = req.headers.get("authorization")
      self.seen.push({ method: req.method, path: url.pathname + url.search, auth })
      if (url.pathname === "/token")
        return basicOk(auth) || !auth
          ? Response.json({ token: auth ? "granted" : "anonymous" })
          : Response.json({ details: "incorrect username or password" }, { status: 401 })
      const allowed =
        o.auth === "none" ||
        (o.auth === "basic" && basicOk(auth)) ||
        (o.auth === "bearer" && (auth === "Bearer granted" || (!!o.anonymous && auth === "Bearer anonymous")))
      if (!allowed)
        return Response.json(
          { errors: [{ code: "UNAUTHORIZED", message: "authentication required" }] },
          {
            status: 401,
            headers: {
              "www-authenticate":
                o.auth === "basic"
                  ? 'Basic realm="stand-in"'
                  : `Bearer realm="${self.host && `http://${self.host}`}/token",service="stand-in"`,
            },
          },
        )
      if (self.remaining !== null && self.remaining <= 0)
        return Response.json(
          { errors: [{ code: "TOOMANYREQUESTS", message: "You have reached your pull rate limit." }] },
          { status: 429, headers: quota() },
        )
      if (url.pathname === "/v2/") return Response.json({}, { headers: quota() })
      if (/^\/v2\/.+\/manifests\/[^/]+$/.test(url.pathname))
        return new Response(null, {
          headers: { ...quota(), "docker-content-digest": o.digest ?? `sha256:${"e".repeat(64)}` },
        })
      return Response.json({ errors: [{ code: "NOT_FOUND" }] }, { status: 404 })
    },
  })
  self.host = `127.0.0.1:${server.port}`
  return self
}
