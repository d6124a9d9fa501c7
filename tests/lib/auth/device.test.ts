import { expect, test } from "bun:test"
import { deviceOf } from "#lib/auth/device.ts"

test("a User-Agent in words: browser and system, a tool by its name, anything else as sent", () => {
  const cases: [string | undefined, string][] = [
    [
      "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0",
      "Edge on Windows",
    ],
    [
      "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15",
      "Safari on macOS",
    ],
    [
      "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
      "Chrome on Android",
    ],
    ["Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0", "Firefox on Linux"],
    ["curl/8.5.0", "curl"],
    ["a-custom-client/1", "a-custom-client/1"],
    [undefined, "unknown"],
  ]
  for (const [agent, words] of cases) expect(deviceOf(agent)).toBe(words)
})
