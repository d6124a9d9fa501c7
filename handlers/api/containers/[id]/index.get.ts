import { containerDetail } from "#lib/engine/containers.ts"
import { defineHandler } from "#lib/http/handler.ts"

export const detail = { summary: "Inspect one container (its environment is not shown)", tags: ["containers"] }

export default defineHandler(async ({ params, ctx }) => containerDetail(await ctx.engine.inspectContainer(params.id!)))
