// A push webhook's proof, checked against the stack's own secret: GitHub's `X-Hub-Signature-256`
// ("sha256=" + hex HMAC-SHA256 of the raw body), Gitea's and Forgejo's `X-Gitea-Signature` /
// `X-Forgejo-Signature` (hex HMAC-SHA256 of the raw body), GitLab's `X-Gitlab-Token` (the secret
// itself). Every comparison takes constant time.
import { createHmac, timingSafeEqual } from "node:crypto"

const same = (a: string, b: string) => {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

/** Which proof the request carries and whether it holds; `none` when it carries none. */
export function checkWebhook(
  headers: Headers,
  body: Uint8Array,
  secret: string,
): { kind: "github" | "gitea" | "gitlab" | "none"; ok: boolean } {
  const hmac = () => createHmac("sha256", secret).update(body).digest("hex")
  const github = headers.get("x-hub-signature-256")
  if (github !== null) return { kind: "github", ok: same(github.trim().toLowerCase(), `sha256=${hmac()}`) }
  const gitea = headers.get("x-gitea-signature") ?? headers.get("x-forgejo-signature")
  if (gitea !== null) return { kind: "gitea", ok: same(gitea.trim().toLowerCase(), hmac()) }
  const gitlab = headers.get("x-gitlab-token")
  if (gitlab !== null) return { kind: "gitlab", ok: same(gitlab, secret) }
  return { kind: "none", ok: false }
}
