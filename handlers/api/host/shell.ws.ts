import * as v from "valibot"
import { defineSocket } from "#lib/service/handler.ts"
import { shellResizeSchema } from "#lib/engine/schemas.ts"
import { checkHostShell, openHostShell } from "#lib/host/terminal.ts"

const size = (what: string) =>
  v.optional(
    v.pipe(v.string(), v.description(`the terminal's first ${what} (with both, a positive whole number each)`)),
  )

export default defineSocket({
  role: "admin",
  detail: {
    operationId: "openHostShell",
    summary:
      'WebSocket to a login shell on the host as SVC_HOST_SHELL\'s user (off unless set; admins only, and only with sign-in on unless the service listens on loopback only): binary frames are raw terminal bytes both ways; a text frame {"type":"resize","cols":C,"rows":R} resizes; closing it kills the shell\'s whole process tree',
    tags: ["host"],
  },
  query: v.object({ cols: size("width in columns"), rows: size("height in rows") }),
  /** The text frame that resizes the terminal; any other text frame is typed as input. */
  message: shellResizeSchema,
  handler: async ({ query, request, ctx }) => {
    checkHostShell(ctx.config.hostShell, ctx.auth.enabled, ctx.config.addr.host)
    const cols = Number(query.cols)
    const rows = Number(query.rows)
    const who = ctx.auth.who(request)?.user ?? "local"
    return openHostShell(
      ctx.config.hostShell,
      who,
      cols > 0 && rows > 0 && cols < 10_000 && rows < 10_000 ? { cols, rows } : undefined,
    )
  },
})
