/** What an error's answer carries besides its code and message. */
export interface ErrorExtras {
  /** Members of the answer beside `error` (a blocked copy's `plan`). */
  body?: Record<string, unknown>
  /** Response headers (a refusal's Retry-After). */
  headers?: Record<string, string>
}

// The one error type handlers throw; lib/service/app.ts turns it into {"error": {code, message}},
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

export const badRequest = (message: string, code = "bad_request") => new HttpError(400, code, message)
export const notFound = (message: string, code = "not_found") => new HttpError(404, code, message)
export const conflict = (message: string, code = "conflict", extras?: ErrorExtras) =>
  new HttpError(409, code, message, extras)
export const unauthorized = (message = "a valid Authorization: Bearer <cluster token> is required") =>
  new HttpError(401, "unauthorized", message)

export function errorResponse(status: number, code: string, message: string, extras: ErrorExtras = {}): Response {
  return Response.json({ ...extras.body, error: { code, message } }, { status, headers: extras.headers })
}
