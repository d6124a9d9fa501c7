import * as v from "valibot"
import { readLimited } from "#lib/http/body-limit.ts"
import { defineHandler } from "#lib/service/handler.ts"
import { stackParams } from "#lib/stacks/name.ts"

export const detail = {
  operationId: "stackGitWebhook",
  summary:
    "A git server's push webhook: signed with the stack's webhook secret (GitHub X-Hub-Signature-256, Gitea/Forgejo X-Gitea-Signature or X-Forgejo-Signature, GitLab X-Gitlab-Token), it is accepted (202) and the stack is synced as POST .../git/sync does, in the background: the verdict is a `git` event and GET .../git's last sync. Unsigned or wrongly signed is 401 and a `git` event, and nothing runs",
  tags: ["git"],
}
export const params = stackParams
export const response = { 202: v.object({ accepted: v.literal(true) }) }
/** Git servers send JSON or a form; the signature covers the raw bytes. */
export const accepts = ["*"]

/** The git server proves itself with the stack's webhook secret. */
export const role = "public"

const WEBHOOK_BODY_MAX = 1024 * 1024

export default defineHandler(async ({ params, request, ctx, set }) => {
  const body = Buffer.from(await readLimited(request, WEBHOOK_BODY_MAX), "utf8")
  const accepted = await ctx.git.webhook(params.name, request.headers, body, { watch: ctx.config.updateWatch })
  set.status = 202
  return accepted
})
