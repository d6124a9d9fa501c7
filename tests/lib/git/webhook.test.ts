import { expect, test } from "bun:test"
import { createHmac } from "node:crypto"
import { checkWebhook } from "#lib/git/webhook.ts"

const SECRET = "a-webhook-secret-of-some-length"
const body = new TextEncoder().encode('{"ref":"refs/heads/main"}')
const hex = (secret: string) => createHmac("sha256", secret).update(body).digest("hex")
const check = (headers: Record<string, string>) => checkWebhook(new Headers(headers), body, SECRET)

test("GitHub, Gitea, Forgejo and GitLab proofs hold with the stack's secret", () => {
  expect(check({ "X-Hub-Signature-256": `sha256=${hex(SECRET)}` })).toEqual({ kind: "github", ok: true })
  expect(check({ "X-Gitea-Signature": hex(SECRET) })).toEqual({ kind: "gitea", ok: true })
  expect(check({ "X-Forgejo-Signature": hex(SECRET) })).toEqual({ kind: "gitea", ok: true })
  expect(check({ "X-Gitlab-Token": SECRET })).toEqual({ kind: "gitlab", ok: true })
})

test("a wrong secret, another body, a bare hex for GitHub or no proof at all fail", () => {
  expect(check({ "X-Hub-Signature-256": `sha256=${hex("other")}` }).ok).toBe(false)
  expect(check({ "X-Hub-Signature-256": hex(SECRET) }).ok).toBe(false)
  expect(
    checkWebhook(new Headers({ "X-Gitea-Signature": hex(SECRET) }), new TextEncoder().encode("{}"), SECRET).ok,
  ).toBe(false)
  expect(check({ "X-Gitlab-Token": `${SECRET}x` }).ok).toBe(false)
  expect(check({})).toEqual({ kind: "none", ok: false })
})
