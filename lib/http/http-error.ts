// The one error type handlers throw; lib/service/app.ts turns it into {"error": {code, message}}.
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}

export const badRequest = (message: string, code = "bad_request") => new HttpError(400, code, message)
export const notFound = (message: string, code = "not_found") => new HttpError(404, code, message)
export const conflict = (message: string, code = "conflict") => new HttpError(409, code, message)
export const unauthorized = (message = "a valid Authorization: Bearer <cluster token> is required") =>
  new HttpError(401, "unauthorized", message)

export function errorBody(code: string, message: string) {
  return { error: { code, message } }
}

export function errorResponse(status: number, code: string, message: string, headers?: HeadersInit): Response {
  return Response.json(errorBody(code, message), { status, headers })
}
