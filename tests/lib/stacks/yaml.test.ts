import { expect, test } from "bun:test"
import { checkYamlSize, parseYaml, parseYamlSync, volumeEntries, YAML_MAX_BYTES } from "#lib/stacks/yaml.ts"

// A bound for a hang, not a timing: these parse large texts and wait their turn on a loaded machine.
const SLOW = 60_000

/** The classic alias bomb: nine levels of nine aliases each, a billion strings once expanded. */
const aliasBomb = () => {
  const lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
  for (let i = 1; i < 9; i++) {
    const [prev, name] = [String.fromCharCode(96 + i), String.fromCharCode(97 + i)]
    lines.push(`${name}: &${name} [${Array(9).fill(`*${prev}`).join(",")}]`)
  }
  return `services:\n  web:\n    image: x\n${lines.map((l) => `x-${l}`).join("\n")}\n`
}

/** What a promise was rejected with. */
const refusal = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (err: unknown) => err,
  )

/** Collection keys, each pretty-printed into a string by the parser: minutes for a few hundred KiB. */
const slowKeys = () => ("? " + "[".repeat(1000) + "]".repeat(1000) + "\n: x\n").repeat(400)

test("merge keys and anchors read as compose reads them", async () => {
  const text = "x-base: &base {image: nginx, restart: always}\nservices:\n  web:\n    <<: *base\n    restart: no\n"
  expect(await parseYaml(text)).toEqual({
    "x-base": { image: "nginx", restart: "always" },
    services: { web: { image: "nginx", restart: "no" } },
  })
  expect(parseYamlSync(text)).toEqual(await parseYaml(text))
})

test("an alias bomb is refused, not expanded", async () => {
  expect(await refusal(parseYaml(aliasBomb()))).toMatchObject({
    kind: "invalid",
    code: "invalid_compose",
    message: expect.stringContaining("alias"),
  })
  expect(() => parseYamlSync(aliasBomb())).toThrow(/alias/)
})

// How fast many keys parse is bench/parsing.ts's to measure; here, only that they all come back (with
// a deadline a loaded machine cannot miss).
test(
  "100,000 keys parse; a duplicate key is left to compose",
  async () => {
    const keys = Array.from({ length: 100_000 }, (_, i) => `k${i.toString(36)}: 1`).join("\n")
    expect(Object.keys((await parseYaml(keys, { deadlineMs: 120_000 })) as object)).toHaveLength(100_000)
    expect(await parseYaml("a: 1\na: 2\n")).toEqual({ a: 2 })
  },
  SLOW,
)

test(
  "text that is not YAML is a 400 invalid_compose with the parser's message, naming the file",
  async () => {
    expect(await refusal(parseYaml("services: [\n"))).toMatchObject({
      kind: "invalid",
      code: "invalid_compose",
      message: expect.stringMatching(/^the compose file does not parse: /),
    })
    expect(await refusal(parseYaml("a: b: c", { what: "/srv/base.yaml" }))).toMatchObject({
      message: expect.stringMatching(/^\/srv\/base.yaml does not parse: /),
    })
    expect(await refusal(parseYaml("a: " + "[".repeat(100_000)))).toMatchObject({ code: "invalid_compose" })
  },
  SLOW,
)

test("a text over the size bound is a 413 before it is parsed", async () => {
  const big = "a: " + "x".repeat(YAML_MAX_BYTES)
  expect(await refusal(parseYaml(big))).toMatchObject({ kind: "too_large", code: "compose_too_large" })
  expect(() => checkYamlSize("é".repeat(YAML_MAX_BYTES / 2 + 1))).toThrow(/at most/)
  expect(() => checkYamlSize("é".repeat(YAML_MAX_BYTES / 2))).not.toThrow()
})

test("a parse past its deadline is stopped with a 400, and the text queued behind it is parsed by a new worker", async () => {
  const slow = refusal(parseYaml(slowKeys(), { deadlineMs: 200 }))
  const queued = parseYaml("queued: 2")
  expect(await slow).toMatchObject({
    kind: "invalid",
    code: "invalid_compose",
    message: expect.stringContaining("longer than 200 ms"),
  })
  expect(await queued).toEqual({ queued: 2 })
  expect(await parseYaml("next: 1")).toEqual({ next: 1 })
})

test("volume entries are found with where they are written, short and long forms", async () => {
  const text =
    "services:\n  web:\n    volumes:\n      - './site:/s'\n      - {type: bind, source: ../logs, target: /l}\n      - data:/d\n  db: {image: x}\n"
  const entries = await volumeEntries(text)
  expect(entries.map(({ service, short, value }) => ({ service, short, value }))).toEqual([
    { service: "web", short: true, value: "./site:/s" },
    { service: "web", short: false, value: "../logs" },
    { service: "web", short: true, value: "data:/d" },
  ])
  expect(entries.map((e) => text.slice(e.start, e.end))).toEqual(["'./site:/s'", "../logs", "data:/d"])
  expect(await refusal(volumeEntries("services: {"))).toMatchObject({ code: "invalid_compose" })
})

test("a text the worker parsed is not parsed again on the event loop", async () => {
  const text = "services:\n  web:\n    image: nginx\n"
  const value = await parseYaml(text)
  expect(parseYamlSync(text)).toBe(value)
  expect(parseYamlSync("services: {}\n")).toEqual({ services: {} })
})

test("one anchor merged into 99 services passes the alias bound", async () => {
  const services = Array.from({ length: 99 }, (_, i) => `  s${i}:\n    <<: *common\n`).join("")
  const doc = (await parseYaml(`x-common: &common {image: nginx, restart: always}\nservices:\n${services}`)) as {
    services: Record<string, object>
  }
  expect(doc.services.s98).toEqual({ image: "nginx", restart: "always" })
})
