// Importing the host's docker CLI configuration once: entries with a user and password are kept,
// the rest listed with the reason (a credential helper, an identity token, kept already, not a
// registry's address); the answer holds no password.
import { afterEach, expect, test } from "bun:test"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { readOpened } from "#lib/data/sealed.ts"
import { testApp, type TestApp } from "../../../support/app.ts"

let t: TestApp
let docker: string
afterEach(() => {
  t.close()
  rmSync(docker, { recursive: true, force: true })
})

const b64 = (s: string) => Buffer.from(s).toString("base64")

test("each entry with credentials becomes a registry; what cannot be is skipped with the reason", async () => {
  docker = mkdtempSync(join(tmpdir(), "hm-docker-config-"))
  t = await testApp({}, { DOCKER_CONFIG: docker })
  const missing = await t.call("POST", "/api/registries/import")
  expect([missing.status, (await missing.json()).error.code]).toEqual([404, "docker_config_not_found"])

  writeFileSync(
    join(docker, "config.json"),
    JSON.stringify({
      auths: {
        "https://index.docker.io/v1/": { auth: b64("hubuser:hub-pw-1:with-colon") },
        "registry.lan:5000": { username: "lan", password: "lan-pw-2" },
        "ghcr.io": { identitytoken: "id-token-3" },
        "quay.io": {},
        "gitlab.example": { auth: b64("x:y") },
        "not a host": { auth: b64("a:b") },
      },
      credHelpers: { "gitlab.example": "secretservice" },
      credsStore: "desktop",
    }),
  )
  const res = await t.call("POST", "/api/registries/import")
  expect(res.status).toBe(200)
  const text = await res.text()
  for (const secret of ["hub-pw-1", "lan-pw-2", "id-token-3"]) expect(text).not.toContain(secret)
  const answer = JSON.parse(text)
  expect(answer.imported).toEqual([
    { name: "docker.io", address: "docker.io", username: "hubuser" },
    { name: "registry.lan-5000", address: "registry.lan:5000", username: "lan" },
  ])
  expect(answer.skipped).toEqual([
    { address: "gitlab.example", reason: "kept by the credential helper docker-credential-secretservice" },
    {
      address: "ghcr.io",
      reason: "an identity token (a login through a browser): add the registry with a password or access token",
    },
    { address: "quay.io", reason: "kept by the credential helper docker-credential-desktop" },
    {
      address: "not a host",
      reason:
        'registry address "not a host": the host is not a host name, an IP address or [IPv6], with an optional :port',
    },
  ])
  expect(JSON.parse(readOpened(join(t.dataDir, "secrets", "registries.json"))!)).toEqual({
    "docker.io": "hub-pw-1:with-colon",
    "registry.lan-5000": "lan-pw-2",
  })
  const listed = await (await t.call("GET", "/api/registries")).json()
  expect(listed.map((r: { origin: string }) => r.origin)).toEqual(["docker_config", "docker_config"])

  const again = await (await t.call("POST", "/api/registries/import")).json()
  expect(again.imported).toEqual([])
  expect(again.skipped).toContainEqual({ address: "docker.io", reason: "kept already, as docker.io" })

  writeFileSync(join(docker, "config.json"), "{not json")
  const broken = await t.call("POST", "/api/registries/import")
  expect([broken.status, (await broken.json()).error.code]).toEqual([400, "docker_config_invalid"])
})
