// The response contract: what a handler file's `response` export may hold, the one error envelope,
// and the check of an answer against its route's schema (used by the handler tests, and by the
// service itself when SVC_RESPONSE_DRIFT_LOG names a file, as the integration tests have it).
import * as v from "valibot"

export type Schema = v.GenericSchema
/** A body that is not JSON: its content type, and for an event stream the schema of one message. */
export interface Stream {
  contentType: string
  description: string
  message?: Schema
}
export type Body = Schema | Stream
/** One body for the success status, or one per status. */
export type Responses = Body | Record<number, Body>

/** `{"error": {code, message}}`, the answer of every 4xx and 5xx. */
export const errorSchema = v.object({ error: v.object({ code: v.string(), message: v.string() }) })

/** Server-sent events, one JSON `message` per `data:` line. */
export const eventStream = (message: Schema, description: string): Stream => ({
  contentType: "text/event-stream",
  description,
  message,
})

/** A tar archive streamed as it is read. */
export const tarStream = (description: string): Stream => ({ contentType: "application/x-tar", description })

const isBody = (r: Responses): r is Body => "~standard" in r || "contentType" in r
export const isStream = (b: Body): b is Stream => "contentType" in b

/** Every declared status with its body; the first is the success status. */
export function statusesOf(responses: Responses): [number, Body][] {
  return isBody(responses) ? [[200, responses]] : Object.entries(responses).map(([s, b]) => [Number(s), b])
}

/** The body a status answers: the declared one, else the error envelope for 4xx and 5xx, else the success one. */
export function bodyFor(responses: Responses, status: number): Body {
  const statuses = statusesOf(responses)
  return statuses.find(([s]) => s === status)?.[1] ?? (status >= 400 ? errorSchema : statuses[0]![1])
}

/** Why an answer does not fit its route's contract, or undefined when it does. JSON bodies are checked whole, streams by content type. */
export function drift(
  responses: Responses,
  status: number,
  contentType: string | null,
  json: () => unknown,
): string | undefined {
  const body = bodyFor(responses, status)
  if (isStream(body))
    return body.contentType === "*/*" || contentType?.startsWith(body.contentType.split(";")[0]!)
      ? undefined
      : `content type ${contentType}, declared ${body.contentType}`
  if (!contentType?.startsWith("application/json")) return `content type ${contentType}, declared application/json`
  const result = v.safeParse(body, json())
  if (result.success) return undefined
  return result.issues
    .slice(0, 5)
    .map((i) => `${v.getDotPath(i) ?? "(root)"}: ${i.message}`)
    .join("; ")
}
