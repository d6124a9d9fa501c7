// Query-string schemas shared by handlers: a query value is always a string on the wire.
import * as v from "valibot"

/** "true"/"1" or "false"/"0", as a boolean. */
export const flag = v.pipe(
  v.picklist(["true", "false", "1", "0"], "must be true or false"),
  v.transform((s) => s === "true" || s === "1"),
)

/** A line count or "all". */
export const tail = v.union(
  [v.literal("all"), v.pipe(v.string(), v.regex(/^\d{1,7}$/), v.transform(Number))],
  'must be a whole number or "all"',
)
