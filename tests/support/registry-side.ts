// The parts beside the test's real registries, run as their own process in the registries' network
// namespace (`bun registry-side.ts CONFIG.json`):
// - a token service for the registry's token authentication (auth.token: realm, service, issuer,
//   rootcertbundle): GET with Basic credentials (the classic image store) or POST with the OAuth2
//   password grant (the containerd store), answering a JWT signed RS256 by a certificate of the
//   test CA (x5c), granting the scope asked for to its one user; `expired` makes it issue tokens that
//   expired a minute ago, as a token service whose clock is wrong does;
// - a proxy in front of the htpasswd registry that reports a pull quota as Docker Hub does
//   (ratelimit-limit / ratelimit-remaining, one pull counted per manifest GET) and answers 429
//   `toomanyrequests` once none is left.
// POST /control with {remaining} or {expired} changes them; each answers its state.
import { readFileSync } from "node:fs"

interface Config {
  token: { addr: string; port: number; key: string; cert: string; user: string; password: string; issuer: string }
  proxy: { addr: string; port: number; key: string; cert: string; ca: string; upstream: string; remaining: number }
}

const config = JSON.parse(readFileSync(process.argv[2]!, "utf8")) as Config
const pem = (f: string) => readFileSync(f, "utf8")
const der = (p: string) => Buffer.from(p.replace(/-----[^-]+-----/g, "").replace(/\s/g, ""), "base64")
const b64u = (b: Uint8Array | string) => Buffer.from(b).toString("base64url")

const signer = await crypto.subtle.importKey(
  "pkcs8",
  der(pem(config.token.key)),
  { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" },
  false,
  ["sign"],
)
const x5c = [der(pem(config.token.cert)).toString("base64")]
let expired = false

async function token(service: string, scopes: string[]): Promise<string> {
  const now = Math.floor(Date.now() / 1000)
  const access = scopes.map((s) => {
    const [type, name, actions] = s.split(":")
    return { type, name, actions: (actions ?? "").split(",") }
  })
  const header = b64u(JSON.stringify({ alg: "RS256", typ: "JWT", x5c }))
  const claims = b64u(
    JSON.stringify({
      iss: config.token.issuer,
      sub: config.token.user,
      aud: service,
      iat: expired ? now - 600 : now,
      nbf: expired ? now - 600 : now - 10,
      exp: expired ? now - 60 : now + 300,
      jti: crypto.randomUUID(),
      access,
    }),
  )
  const signature = await crypto.subtle.sign(
    "RSASSA-PKCS1-v1_5",
    signer,
    new TextEncoder().encode(`${header}.${claims}`),
  )
  return `${header}.${claims}.${b64u(new Uint8Array(signature))}`
}

Bun.serve({
  hostname: config.token.addr,
  port: config.token.port,
  async fetch(req) {
    const url = new URL(req.url)
    if (url.pathname === "/control") {
      expired = Boolean(((await req.json()) as { expired?: boolean }).expired)
      return Response.json({ expired })
    }
    let user: string | undefined
    let password: string | undefined
    const params = new URLSearchParams(url.search)
    if (req.method === "POST") {
      const form = new URLSearchParams(await req.text())
      user = form.get("username") ?? undefined
      password = form.get("password") ?? undefined
      for (const k of ["service", "scope"]) for (const v of form.getAll(k)) params.append(k, v)
    } else {
      const basic = req.headers.get("authorization")
      if (basic?.startsWith("Basic ")) {
        const text = Buffer.from(basic.slice(6), "base64").toString()
        user = text.slice(0, text.indexOf(":"))
        password = text.slice(text.indexOf(":") + 1)
      }
    }
    if (user !== config.token.user || password !== config.token.password)
      return Response.json({ details: "incorrect username or password" }, { status: 401 })
    const scopes = params
      .getAll("scope")
      .flatMap((s) => s.split(" "))
      .filter(Boolean)
    const t = await token(params.get("service") ?? "", scopes)
    return Response.json({ token: t, access_token: t, expires_in: 300, issued_at: new Date().toISOString() })
  },
})

let remaining = config.proxy.remaining
const quota = () => ({ "ratelimit-limit": "100;w=21600", "ratelimit-remaining": `${remaining};w=21600` })
const ca = pem(config.proxy.ca)

Bun.serve({
  hostname: config.proxy.addr,
  port: config.proxy.port,
  tls: { cert: pem(config.proxy.cert), key: pem(config.proxy.key) },
  async fetch(req) {
    const url = new URL(req.url)
    if (url.pathname === "/control") {
      remaining = Number(((await req.json()) as { remaining: number }).remaining)
      return Response.json({ remaining })
    }
    const manifest = /\/manifests\//.test(url.pathname)
    if (manifest && remaining <= 0)
      return Response.json(
        {
          errors: [
            {
              code: "TOOMANYREQUESTS",
              message:
                "You have reached your pull rate limit. You may increase the limit by authenticating and upgrading",
            },
          ],
        },
        { status: 429, headers: quota() },
      )
    if (manifest && req.method === "GET") remaining--
    const headers = new Headers(req.headers)
    headers.delete("host")
    const res = await fetch(`https://${config.proxy.upstream}${url.pathname}${url.search}`, {
      method: req.method,
      headers,
      body: req.body,
      redirect: "manual",
      decompress: false,
      tls: { ca },
    } as RequestInit)
    const out = new Headers(res.headers)
    for (const [k, v] of Object.entries(quota())) out.set(k, v)
    return new Response(res.body, { status: res.status, headers: out })
  },
})

console.log("listening")
