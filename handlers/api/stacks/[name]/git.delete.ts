import * as v from "valibot"
import { defineHandler } from "#lib/service/handler.ts"
import { stackParams } from "#lib/stacks/name.ts"

export const detail = {
  operationId: "deleteStackGit",
  summary: "Detach the stack from git (its source, token and webhook secret forgotten); it keeps running as it is",
  tags: ["git"],
}
export const params = stackParams
export const response = v.object({ detached: v.string() })

export const role = "operator"

export default defineHandler(async ({ params, ctx }) => {
  await ctx.git.detach(params.name)
  return { detached: params.name }
})
