// The response schemas of the metrics routes.
import * as v from "valibot"

export const targetGroupSchema = v.object({ targets: v.array(v.string()), labels: v.record(v.string(), v.string()) })
