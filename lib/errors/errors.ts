// The service's domain errors: what went wrong, in the words of the room that knows, with no HTTP in
// it. A room throws one of a few kinds with a stable `code` (`stack_not_found`, `invalid_compose`)
// and a message a person can act on; `fields` are members an answer carries beside the error (a
// blocked copy's `plan`), `retryAfter` the seconds after which trying again has a fair chance. The
// HTTP edge (lib/http/http-error.ts) maps a kind to its status; the CLI prints the message; the MCP
// tools answer the same `{error: {code, message}}` the routes do.

export const KINDS = [
  /** The input is wrong: a bad name, a compose file compose refuses, a value out of range. */
  "invalid",
  /** No credential, or one that is not (or no longer) valid. */
  "unauthenticated",
  /** The caller is known and may not do this (a role, a scope, a policy, a guard of the host). */
  "refused",
  /** What was named does not exist. */
  "not_found",
  /** The state is not what the operation needs (taken, locked, changed meanwhile, still in use). */
  "conflict",
  /** The input is larger than what is accepted. */
  "too_large",
  /** The input's format or content type is not one that is accepted. */
  "unsupported",
  /** Too many attempts: try again after `retryAfter`. */
  "rate_limited",
  /** A part the operation needs cannot serve now (busy, starting, switched off): try again later. */
  "unavailable",
  /** Something this service called (the engine, a registry, a node, git, restic) failed or refused. */
  "upstream",
  /** The operation or something it called did not finish within its deadline. */
  "timed_out",
  /** The data directory's disk (or the engine's) is full. */
  "no_space",
  /** The caller went away before the operation finished. */
  "canceled",
  /** A fault of this service itself. */
  "internal",
] as const

export type ErrorKind = (typeof KINDS)[number]

export interface ErrorDetails {
  /** Members of the answer beside `error` (a blocked copy's `plan`, a git refusal's `commit`). */
  fields?: Record<string, unknown>
  /** Seconds after which a retry has a fair chance (rate_limited, unavailable). */
  retryAfter?: number
  /** The error this one explains. */
  cause?: unknown
}

export class DomainError extends Error {
  readonly fields: Record<string, unknown> | undefined
  readonly retryAfter: number | undefined

  constructor(
    readonly kind: ErrorKind,
    readonly code: string,
    message: string,
    details: ErrorDetails = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause })
    this.fields = details.fields
    this.retryAfter = details.retryAfter
  }

  /** The same error with another message (a secret taken out of the one a tool printed). */
  withMessage(message: string): DomainError {
    return new DomainError(this.kind, this.code, message, { fields: this.fields, retryAfter: this.retryAfter })
  }
}

const make =
  (kind: ErrorKind, fallback: string) =>
  (message: string, code = fallback, details?: ErrorDetails) =>
    new DomainError(kind, code, message, details)

export const invalid = make("invalid", "invalid_request")
export const unauthenticated = make("unauthenticated", "unauthorized")
export const refused = make("refused", "forbidden")
export const notFound = make("not_found", "not_found")
export const conflict = make("conflict", "conflict")
export const tooLarge = make("too_large", "too_large")
export const unsupported = make("unsupported", "unsupported_media_type")
export const rateLimited = make("rate_limited", "too_many_requests")
export const unavailable = make("unavailable", "unavailable")
export const upstream = make("upstream", "upstream_failed")
export const timedOut = make("timed_out", "timed_out")
export const noSpace = make("no_space", "insufficient_storage")
export const canceled = make("canceled", "canceled")
export const internal = make("internal", "internal")

/** The kinds that refuse the request as it was sent (its input, its caller, the state it meets), not a failure on the way. */
export const REFUSALS: readonly ErrorKind[] = [
  "invalid",
  "unauthenticated",
  "refused",
  "not_found",
  "conflict",
  "too_large",
  "unsupported",
  "rate_limited",
]

/** Whether `err` is a domain error of `kind` (of any kind when none is given). */
export const isDomainError = (err: unknown, ...kinds: ErrorKind[]): err is DomainError =>
  err instanceof DomainError && (kinds.length === 0 || kinds.includes(err.kind))

/** Whether `err` refuses the request as it was sent (one of REFUSALS). */
export const isRefusal = (err: unknown): err is DomainError => isDomainError(err, ...REFUSALS)
