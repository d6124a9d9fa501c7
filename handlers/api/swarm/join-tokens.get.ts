import { defineHandler } from "#lib/service/handler.ts"
import { joinTokensSchema } from "#lib/swarm/schemas.ts"
import { joinTokens } from "#lib/swarm/state.ts"

export const detail = {
  operationId: "getSwarmJoinTokens",
  summary:
    "The swarm's join tokens for a worker and a manager (a manager's, with the cluster token): the only answer that shows them",
  tags: ["swarm"],
}

export const response = joinTokensSchema

export const access = "cluster"
export const role = "admin"

export default defineHandler(async ({ ctx }) => joinTokens(ctx.engine))
