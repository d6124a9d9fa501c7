import { expect, test } from "bun:test"
import { answerOf, callApi, sseData } from "#lib/mcp/api.ts"
import { DomainError } from "#lib/errors/errors.ts"

const body = (text: string) => new Response(text).body!

test("sseData keeps the data of each event and skips comments", async () => {
  expect(await sseData(body(': connected\n\ndata: {"line":"a"}\n\n: ping\n\ndata: {"line":"b"}\n\n'))).toEqual([
    { line: "a" },
    { line: "b" },
  ])
})

test("an error event fails with its code and message", async () => {
  expect(
    sseData(body('data: {"line":"a"}\n\nevent: error\ndata: {"error":{"code":"stream_failed","message":"gone"}}\n\n')),
  ).rejects.toThrow("gone")
})

test("callApi sends the query and a JSON body, and reads the answer by its type", async () => {
  const seen: Request[] = []
  const fetch = async (req: Request) => {
    seen.push(req)
    return req.method === "GET"
      ? new Response("services: {}\n", { headers: { "content-type": "text/yaml" } })
      : Response.json({ ok: true })
  }
  expect(await callApi(fetch, { method: "GET", path: "/api/x", query: { tail: 5, all: true, none: undefined } })).toBe(
    "services: {}\n",
  )
  expect(new URL(seen[0]!.url).search).toBe("?tail=5&all=true")
  expect(await callApi(fetch, { method: "POST", path: "/api/y", body: { a: 1 } })).toEqual({ ok: true })
  expect(seen[1]!.headers.get("content-type")).toBe("application/json")
  expect(await seen[1]!.json()).toEqual({ a: 1 })
})

test("answerOf gives the route's JSON text as it sent it, beside the value", async () => {
  const sent = '{"b":[1,2],"a":"x\\u00e9"}'
  const fetch = async (req: Request) =>
    req.method === "GET"
      ? new Response(sent, { headers: { "content-type": "application/json" } })
      : new Response('data: {"line":"a"}\n\n', { headers: { "content-type": "text/event-stream" } })
  expect(await answerOf(fetch, { method: "GET", path: "/api/x" })).toEqual({
    value: { b: [1, 2], a: "x\u00e9" },
    text: sent,
  })
  expect(await answerOf(fetch, { method: "POST", path: "/api/x" })).toEqual({
    value: [{ line: "a" }],
    text: '[{"line":"a"}]',
  })
})

test("an error answer throws the API's code and message", async () => {
  const fetch = async () =>
    Response.json({ error: { code: "conflict", message: "stack web is busy" } }, { status: 409 })
  const error = (await callApi(fetch, { method: "POST", path: "/api/stacks/web/restart" }).catch(
    (e) => e,
  )) as DomainError
  expect(error).toBeInstanceOf(DomainError)
  expect([error.kind, error.code, error.message]).toEqual(["conflict", "conflict", "stack web is busy"])
})
