// A handler's input is typed from its route's valibot schemas, their output: the type check of the
// test command (tsc --noEmit) fails on this file when a schema's output does not reach the handler, or
// reaches it as `any` (each @ts-expect-error below is then unused, which tsc refuses).
import { expect, test } from "bun:test"
import * as v from "valibot"
import { defineRoute } from "#lib/service/handler.ts"

const params = v.object({ name: v.string() })
const query = v.object({ n: v.pipe(v.string(), v.transform(Number)) })
const body = v.object({ on: v.boolean() })

const route = defineRoute({
  role: "viewer",
  params,
  query,
  body,
  handler: ({ params, query, body }) => {
    // @ts-expect-error a member the schema does not declare
    void body.off
    // @ts-expect-error the query's output is a number, not the string it came as
    const n: string = query.n
    // @ts-expect-error a path parameter is a string
    const name: number = params.name
    return { name, n, on: body.on }
  },
})

test("a route keeps its declarations beside its handler, which gets what they made of the request", async () => {
  expect([route.params, route.query, route.body]).toEqual([params, query, body])
  const input = {
    params: v.parse(params, { name: "web" }),
    query: v.parse(query, { n: "3" }),
    body: v.parse(body, { on: true }),
  } as Parameters<typeof route.handler>[0]
  expect(await route.handler(input)).toEqual({ name: "web", n: 3, on: true })
})
