import { DomainError, type ErrorKind } from "../errors/errors.ts"

/** What an error's answer carries besides its code and message. */
export interface ErrorExtras {
  /** Members of the answer beside `error` (a blocked copy's `plan`). */
  body?: Record<string, unknown>
  /** Response headers (a refusal's Retry-After). */
  headers?: Record<string, string>
}

// The HTTP edge's own refusal, with its status: the browser guard's and the body limit's (before any
// room runs), and the UI's API client's error. The rooms throw domain errors (lib/errors/errors.ts),
// which STATUS_OF below maps to a status. lib/service/app.ts turns either into {"error": {code, message}},
// with its extra members beside `error` and its headers.
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extras: ErrorExtras = {},
  ) {
    super(message)
  }
}

export function errorResponse(status: number, code: string, message: string, extras: ErrorExtras = {}): Response {
  return Response.json({ ...extras.body, error: { code, message } }, { status, headers: extras.headers })
}

/** The status each domain error kind answers with: the one place a kind becomes HTTP. */
export const STATUS_OF: Record<ErrorKind, number> = {
  invalid: 400,
  unauthenticated: 401,
  refused: 403,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  unsupported: 415,
  rate_limited: 429,
  canceled: 499,
  internal: 500,
  upstream: 502,
  unavailable: 503,
  timed_out: 504,
  no_space: 507,
}

/** The kind an answer's status stands for (a node's or a tool's answer read back as a domain error). */
export function kindOf(status: number): ErrorKind {
  const kind = (Object.keys(STATUS_OF) as ErrorKind[]).find((k) => STATUS_OF[k] === status)
  if (kind) return kind
  if (status === 422) return "invalid"
  if (status === 408) return "timed_out"
  if (status === 423 || status === 412 || status === 410) return "conflict"
  return status >= 500 ? "upstream" : "invalid"
}

/** Any error as the status, code and message of its answer (a stream's failure, told in a message of the stream). */
export function errorFields(err: unknown): { status: number; code: string; message: string } {
  if (err instanceof DomainError) return { status: STATUS_OF[err.kind], code: err.code, message: err.message }
  if (err instanceof HttpError) return { status: err.status, code: err.code, message: err.message }
  return { status: 500, code: "internal", message: err instanceof Error ? err.message : String(err) }
}

/** A domain error's answer: its kind's status, `{error: {code, message}}` with its fields beside, Retry-After. */
export function domainErrorResponse(error: DomainError): Response {
  const headers = error.retryAfter === undefined ? undefined : { "retry-after": String(Math.ceil(error.retryAfter)) }
  return errorResponse(STATUS_OF[error.kind], error.code, error.message, { body: error.fields, headers })
}

/** The kind of a thrown error: a domain error's own, an HttpError's (the edge's refusals) read from its status. */
export function errorKind(err: unknown): ErrorKind | undefined {
  if (err instanceof DomainError) return err.kind
  return err instanceof HttpError ? kindOf(err.status) : undefined
}
