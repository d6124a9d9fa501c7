// Stack names become folder names and compose project names, so they are checked before anything
// touches the disk: lowercase letters, digits, "-" and "_", starting with a letter or digit.
import { join } from "node:path"
import * as v from "valibot"
import { invalid } from "../errors/errors.ts"

/** Under the data directory: the stacks' folders (compose's project directories) and what the service keeps of each. */
export const stackDirs = (dataDir: string) => ({ folders: join(dataDir, "stacks"), records: join(dataDir, "records") })

export const STACK_NAME = /^[a-z0-9][a-z0-9_-]*$/
export const STACK_NAME_MAX = 63

export function isStackName(name: unknown): name is string {
  return typeof name === "string" && name.length <= STACK_NAME_MAX && STACK_NAME.test(name)
}

const RULE = `use at most ${STACK_NAME_MAX} lowercase letters, digits, "-" and "_", starting with a letter or digit`

/** The name itself, or a 400 naming the rule. */
export function stackName(name: unknown): string {
  if (isStackName(name)) return name
  throw invalid(`invalid stack name ${JSON.stringify(String(name).slice(0, 80))}: ${RULE}`, "invalid_name")
}

/** The same rule as a schema, for a path parameter (a bad one answers 400 invalid_name). */
export const stackNameSchema = v.pipe(
  v.string(),
  v.maxLength(STACK_NAME_MAX, RULE),
  v.regex(STACK_NAME, RULE),
  v.description("stack name (its compose project name)"),
)

/** The params of the routes under /api/stacks/{name}. */
export const stackParams = v.object({ name: stackNameSchema })
