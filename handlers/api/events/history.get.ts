import { defineHandler } from "#lib/http/handler.ts"

export const detail = { summary: "The last 100 events, oldest first", tags: ["system"] }

export default defineHandler(async ({ ctx }) => ctx.events.history())
