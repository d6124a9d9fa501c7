import { defineHandler } from "#lib/http/handler.ts"
import { stackName } from "#lib/stacks/name.ts"
import { stackAction } from "#lib/stacks/state.ts"

export const detail = { summary: "Restart every container of the stack (paused ones excepted), found by the compose labels", tags: ["stacks"] }

export default defineHandler(async ({ params, ctx }) => stackAction(ctx.stacks, ctx.engine, stackName(params.name), "restart"))
