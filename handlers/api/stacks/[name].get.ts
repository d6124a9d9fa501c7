import { defineHandler } from "../../../lib/handler.ts"
import { stackName } from "../../../lib/stack-name.ts"
import { stackView } from "../../../lib/stack-state.ts"

export const detail = { summary: "One stack: state, services and their containers, current_version, env_pending", tags: ["stacks"] }

export default defineHandler(async ({ params, ctx }) => stackView(ctx.stacks, ctx.engine, stackName(params.name)))
