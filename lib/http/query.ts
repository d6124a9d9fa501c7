// Query-string schemas shared by handlers: a query value is always a string on the wire.
import * as v from "valibot"

const flagText = v.picklist(["true", "false", "1", "0"], "must be true or false")
type FlagText = v.InferOutput<typeof flagText>
const toBoolean = v.transform<FlagText, boolean>((s) => s === "true" || s === "1")

/** "true"/"1" or "false"/"0", as a boolean. */
export const flag = v.pipe(flagText, toBoolean)

/** A flag with the words that say what it does (in the API's documents and the MCP tools). */
export const flagFor = (description: string) => v.pipe(flagText, v.description(description), toBoolean)

/** A line count or "all". */
export const tail = v.pipe(
  v.union(
    [v.literal("all"), v.pipe(v.string(), v.regex(/^\d{1,7}$/), v.transform(Number))],
    'must be a whole number or "all"',
  ),
  v.description('how many of the last lines to send, or "all" (default: the service\'s SVC_LOGS_TAIL)'),
)
