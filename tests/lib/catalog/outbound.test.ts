// What a template may make the service reach: private, loopback, link-local and special addresses are
// refused (v4, v6, v4 inside v6), public ones are not; a redirect to a private address is refused too,
// and a body past its limit.
import { afterAll, expect, test } from "bun:test"
import { isPrivateAddress, outboundGet } from "#lib/catalog/outbound.ts"

test.each([
  "127.0.0.1",
  "10.1.2.3",
  "172.16.0.1",
  "192.168.1.1",
  "169.254.169.254",
  "100.64.0.1",
  "0.0.0.0",
  "224.0.0.1",
  "::1",
  "::",
  "fe80::1",
  "fd00::1",
  "::ffff:127.0.0.1",
  "::ffff:a9fe:a9fe",
  "64:ff9b::a9fe:a9fe",
])("%s is private", (a) => expect(isPrivateAddress(a)).toBe(true))

test.each(["1.1.1.1", "93.184.216.34", "2606:4700:4700::1111", "172.32.0.1"])("%s is public", (a) =>
  expect(isPrivateAddress(a)).toBe(false),
)

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch: (req) => {
    const path = new URL(req.url).pathname
    if (path === "/hop") return Response.redirect("http://169.254.169.254/latest/meta-data/", 302)
    if (path === "/big") return new Response("x".repeat(5000))
    return new Response("ok")
  },
})
afterAll(() => server.stop(true))
const base = `http://127.0.0.1:${server.port}`

test("loopback is reached only by a local source; a redirect to a link-local address is refused even for one", async () => {
  const far = await outboundGet(`${base}/`, { reach: { local: false }, maxBytes: 100, timeout: 5 }).catch((e) => e)
  expect(far.code).toBe("private_address")
  const near = await outboundGet(`${base}/`, { reach: { local: true }, maxBytes: 100, timeout: 5 })
  expect(new TextDecoder().decode(near.body)).toBe("ok")
  const hop = await outboundGet(`${base}/hop`, { reach: { local: false }, maxBytes: 100, timeout: 5 }).catch((e) => e)
  expect(hop.code).toBe("private_address")
  const big = await outboundGet(`${base}/big`, { reach: { local: true }, maxBytes: 100, timeout: 5 }).catch((e) => e)
  expect(big.code).toBe("source_too_large")
  const creds = await outboundGet("http://u:p@example.com/", { reach: { local: true }, maxBytes: 1, timeout: 5 }).catch(
    (e) => e,
  )
  expect(creds.code).toBe("invalid_url")
})
