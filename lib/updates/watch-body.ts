// The body of an operation that may be watched: `watch`, seconds of health watch after it (0 to 3600).
import * as v from "valibot"

export const watchSeconds = v.optional(
  v.pipe(
    v.number(),
    v.integer(),
    v.minValue(0),
    v.maxValue(3600),
    v.description("seconds to watch the stack's health afterwards; a failed watch goes back to what ran before"),
  ),
)
export const watchBody = v.optional(v.object({ watch: watchSeconds }), {})
