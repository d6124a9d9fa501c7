// The schemas of the volume transfer routes: the volume name as a path parameter, and what an import answers.
import * as v from "valibot"
import { VOLUME_NAME } from "./transfer.ts"

export const volumeParams = v.object({
  name: v.pipe(
    v.string(),
    v.regex(VOLUME_NAME, 'a volume name is letters, digits, "_", "." and "-", starting with a letter or digit'),
  ),
})

export const volumeImportSchema = v.object({ name: v.string(), created: v.boolean() })
