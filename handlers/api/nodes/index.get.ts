import { defineHandler } from "#lib/http/handler.ts"

export const detail = { summary: "The node registry, ordered by name", tags: ["nodes"] }

export default defineHandler(async ({ ctx }) => ctx.nodes.list())
