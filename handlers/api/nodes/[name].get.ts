import { defineHandler } from "#lib/http/handler.ts"

export const detail = { summary: "One node of the registry", tags: ["nodes"] }

export default defineHandler(async ({ params, ctx }) => ctx.nodes.get(params.name!))
