import { expect, test } from "bun:test"
import { interpolate } from "#lib/stacks/interpolate.ts"

const env = { APP: "web", EMPTY: "", TAG: "1.2" }

test.each([
  ["plain", "plain"],
  ["${APP}_data", "web_data"],
  ["$APP-x", "web-x"],
  ["$$APP", "$APP"],
  ["${MISSING}", ""],
  ["${MISSING:-def}", "def"],
  ["${EMPTY:-def}", "def"],
  ["${EMPTY-def}", ""],
  ["${MISSING-def}", "def"],
  ["${APP:-def}", "web"],
  ["${APP:+alt}", "alt"],
  ["${EMPTY:+alt}", ""],
  ["${APP:?must be set}", "web"],
  ["img:${TAG}", "img:1.2"],
])("%p becomes %p", (text, out) => {
  expect(interpolate(text, env)).toBe(out)
})

test.each([
  ["${MISSING:-${APP}}", "web"],
  ["${MISSING:-${ALSO:-/etc}}/x", "/etc/x"],
  ["${APP:+${TAG}-x}", "1.2-x"],
  ["${EMPTY-${APP}}", ""],
  ["a${MISSING:-b${MISSING:-c}d}e", "abcde"],
  ["$$${APP}", "$web"],
  ["${unclosed", "${unclosed"],
])("nested: %p becomes %p", (text, out) => {
  expect(interpolate(text, env)).toBe(out)
})
