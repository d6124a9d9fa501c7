import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"
import { notFound, refused } from "#lib/errors/errors.ts"
import { caller } from "#lib/auth/caller.ts"
import { tokenGrant } from "#lib/auth/tokens.ts"
import { roleSchema, tokenSchema } from "#lib/auth/schemas.ts"
import { stacksInput } from "#lib/auth/user-input.ts"

export default defineRoute({
  role: "viewer",
  detail: {
    operationId: "createToken",
    summary:
      "Create an API token (Authorization: Bearer hm_...): for yourself, or by an admin for any local user, with a role and stacks at most its owner's (403 otherwise; at every use it is met with what its owner has then); at most 100 per user (409 too_many_tokens). The token is in this answer only",
    tags: ["auth"],
  },
  body: v.object({
    name: v.pipe(v.string(), v.minLength(1), v.maxLength(100), v.description("what the token is for")),
    role: v.optional(v.pipe(roleSchema, v.description("at most the owner's role; default: the owner's"))),
    user: v.optional(
      v.pipe(v.string(), v.description("the owner (an admin creating a token for a local user); default: the caller")),
    ),
    stacks: v.optional(
      v.pipe(
        stacksInput,
        v.description("limit the token to these stacks, all of them the owner's; [] or absent: the owner's"),
      ),
    ),
    expires_in: v.optional(
      v.pipe(v.number(), v.integer(), v.minValue(60), v.description("seconds until it stops working; default: never")),
    ),
    mcp_confirm: v.optional(
      v.pipe(
        v.boolean(),
        v.description(
          "MCP tools that change something answer with their plan and act on a call with confirm: true (default true)",
        ),
      ),
    ),
  }),
  response: {
    201: v.object({ ...tokenSchema.entries, token: v.pipe(v.string(), v.description("the token, shown this once")) }),
  },
  handler: async ({ body, request, ctx, set }) => {
    const me = caller(ctx.auth, request)
    if (me.token || me.source === "cluster")
      throw refused("only a signed-in user creates tokens (not an API token, not the cluster token)")
    const forOther = body.user !== undefined && body.user !== me.user
    if (forOther && me.role !== "admin") throw refused("only an admin creates tokens for another user")
    const owner = forOther ? ctx.auth.users.get(body.user!) : me
    if (!owner) throw notFound(`no local user "${body.user}"`, "user_not_found")
    const { role, stacks } = tokenGrant(owner, body)
    const { token, record } = await ctx.auth.tokens.create({
      name: body.name,
      user: forOther ? body.user! : me.user,
      source: forOther ? "local" : me.source,
      role,
      ...(stacks && { stacks: [...stacks] }),
      ...(body.expires_in && { expires: ctx.now() + body.expires_in * 1000 }),
      mcp_confirm: body.mcp_confirm ?? true,
    })
    set.status = 201
    return { ...record, token }
  },
})
