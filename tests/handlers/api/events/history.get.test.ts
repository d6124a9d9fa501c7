import { afterEach, expect, test } from "bun:test"
import { testApp, type TestApp } from "../../../support/app.ts"

let t: TestApp
afterEach(() => t.close())

test("history answers the last 100 events, oldest first", async () => {
  t = await testApp()
  for (let i = 0; i < 105; i++) t.ctx.events.publish({ type: "stack", action: "up", name: `s${i}` })
  const history = await (await t.call("GET", "/api/events/history")).json()
  expect(history).toHaveLength(100)
  expect(history[0]).toMatchObject({ source: "service", type: "stack", action: "up", name: "s5" })
  expect(history.at(-1).name).toBe("s104")
})
