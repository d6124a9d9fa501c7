import { leave } from "#lib/cluster/membership.ts"
import { defineHandler } from "#lib/http/handler.ts"

export const detail = { summary: "Leave the cluster: ask the control plane to drop this server, then forget locally", tags: ["cluster"] }

export default defineHandler(async ({ ctx }) => leave(ctx))
