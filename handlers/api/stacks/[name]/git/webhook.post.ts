import * as v from "valibot"
import { readLimited } from "#lib/http/body-limit.ts"
import { defineRoute } from "#lib/service/handler.ts"
import { stackParams } from "#lib/stacks/name.ts"

const WEBHOOK_BODY_MAX = 1024 * 1024

export default defineRoute({
  /** The git server proves itself with the stack's webhook secret. */
  role: "public",
  detail: {
    operationId: "stackGitWebhook",
    summary:
      "A git server's push webhook: signed with the stack's webhook secret (GitHub X-Hub-Signature-256, Gitea/Forgejo X-Gitea-Signature or X-Forgejo-Signature, GitLab X-Gitlab-Token), it is accepted (202) and the stack is synced as POST .../git/sync does, in the background: the verdict is a `git` event and GET .../git's last sync. Unsigned or wrongly signed is 401 and a `git` event, and nothing runs",
    tags: ["git"],
  },
  params: stackParams,
  /** Git servers send JSON or a form; the signature covers the raw bytes. */
  accepts: ["*"],
  /** A git server calls it from its own host. */
  browserGuard: false,
  response: { 202: v.object({ accepted: v.literal(true) }) },
  handler: async ({ params, request, ctx, set }) => {
    const body = Buffer.from(await readLimited(request, WEBHOOK_BODY_MAX), "utf8")
    const accepted = await ctx.git.webhook(params.name, request.headers, body, { watch: ctx.config.updateWatch })
    set.status = 202
    return accepted
  },
})
