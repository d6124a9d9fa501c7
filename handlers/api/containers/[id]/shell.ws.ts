import * as v from "valibot"
import { defineSocket } from "#lib/service/handler.ts"
import { openShell } from "#lib/engine/shell.ts"
import { engineRef, shellResizeSchema } from "#lib/engine/schemas.ts"

const size = (what: string) =>
  v.optional(
    v.pipe(v.string(), v.description(`the terminal's first ${what} (with both, a positive whole number each)`)),
  )

export default defineSocket({
  role: "operator",
  detail: {
    operationId: "openShell",
    summary:
      'WebSocket to an interactive sh: binary frames are raw PTY bytes both ways; a text frame {"type":"resize","cols":C,"rows":R} resizes; query cols/rows set the first size',
    tags: ["containers"],
  },
  params: v.object({ id: engineRef }),
  query: v.object({ cols: size("width in columns"), rows: size("height in rows") }),
  /** The text frame that resizes the terminal; any other text frame is typed as input. */
  message: shellResizeSchema,
  handler: async ({ params, query, ctx }) => {
    const cols = Number(query.cols)
    const rows = Number(query.rows)
    return openShell(ctx.engine, params.id, cols > 0 && rows > 0 ? { cols, rows } : undefined)
  },
})
