import { expect, test } from "bun:test"
import * as v from "valibot"
import {
  envChanges,
  envInput,
  looksSecret,
  mergeEnv,
  publicEnv,
  redact,
  redactorFor,
  renderEnvFile,
  sameEnv,
  type EnvVar,
} from "#lib/stacks/env.ts"

const stored: EnvVar[] = [
  { key: "USER", value: "admin", secret: false },
  { key: "PASSWORD", value: "hunter2", secret: true },
]

test("the public view hides secret values only", () => {
  expect(publicEnv(stored)).toEqual([
    { key: "USER", value: "admin", secret: false },
    { key: "PASSWORD", value: null, secret: true },
  ])
})

test("merge: null keeps the stored value and flag, omitted keys are dropped, new keys default to not secret", () => {
  const merged = mergeEnv(stored, [
    { key: "PASSWORD", value: null },
    { key: "PORT", value: "80" },
  ])
  expect(merged).toEqual([
    { key: "PASSWORD", value: "hunter2", secret: true },
    { key: "PORT", value: "80", secret: false },
  ])
  expect(mergeEnv(stored, [{ key: "USER", value: "root", secret: true }])).toEqual([
    { key: "USER", value: "root", secret: true },
  ])
})

test("merge refuses a null value with nothing stored and duplicate keys", () => {
  expect(() => mergeEnv(stored, [{ key: "NEW", value: null }])).toThrow(/no stored value/)
  expect(() =>
    mergeEnv(stored, [
      { key: "A", value: "1" },
      { key: "A", value: "2" },
    ]),
  ).toThrow(/twice/)
})

test("keys must be variable names", () => {
  expect(v.safeParse(envInput, [{ key: "1A", value: "x" }]).success).toBe(false)
  expect(v.safeParse(envInput, [{ key: "A=B", value: "x" }]).success).toBe(false)
  expect(v.safeParse(envInput, [{ key: "_A1", value: "x" }]).success).toBe(true)
})

test("changes name keys, never values", () => {
  const after: EnvVar[] = [
    { key: "PASSWORD", value: "other", secret: true },
    { key: "PORT", value: "80", secret: false },
  ]
  const changes = envChanges(stored, after)
  expect(changes).toEqual({ added: ["PORT"], removed: ["USER"], changed: ["PASSWORD"] })
  expect(JSON.stringify(changes)).not.toContain("other")
  expect(sameEnv(stored, [...stored].reverse())).toBe(true)
  expect(sameEnv(stored, after)).toBe(false)
})

test("redact replaces every occurrence, a secret holding another as a whole", () => {
  expect(redact("pw=hunter2 again hunter2; abc abcdef", ["abc", "abcdef", "hunter2"])).toBe("pw=*** again ***; *** ***")
  expect(redact("xabcdefx", ["cde", "abcdef", "b"])).toBe("x***x")
})

test("redact: overlapping secrets and overlapping occurrences of one become a single ***", () => {
  expect(redact("key=abcdef;", ["abcd", "cdef"])).toBe("key=***;")
  expect(redact("key=cdefab;", ["abcd", "cdef"])).toBe("key=***ab;")
  expect(redact("aaaaa", ["aaa"])).toBe("***")
  expect(redact("s3cr3ts3cr3t", ["s3cr3t"])).toBe("******")
})

test("redact takes secrets literally: regular expression characters and $ patterns mean nothing", () => {
  expect(redact("a.b a+b (x|y) $& [z]* \\d", ["a+b", "(x|y)", "$&", "[z]*", "\\d"])).toBe("a.b *** *** *** *** ***")
  expect(redact("nothing here", [])).toBe("nothing here")
  expect(redact("nothing here", [""])).toBe("nothing here")
})

const pem = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nqhkiG9w0\nxyz=\n-----END PRIVATE KEY-----"

test("redact matches a multi-line secret whole, newlines and all, and as lines read one by one", () => {
  expect(redact(`key: ${pem}.`, [pem])).toBe("key: ***.")
  expect(redact(`out:\n${pem.replace(/\n/g, "\r\n")}\n`, [pem.replace(/\n/g, "\r\n")])).toBe("out:\n***\n")
  // Output split into lines and joined again loses \r and blank lines.
  const blank = "first-line-of-it\r\n\r\nab\n"
  expect(redact("a\nfirst-line-of-it\nab\nb", [blank])).toBe("a\n***\nb")
})

test("redact hides a secret escaped as JSON and Go's %q quote it, newlines and all", () => {
  expect(redact(`invalid reference "reg/pa\\"ss\\\\x": bad`, ['pa"ss\\x'])).toBe('invalid reference "reg/***": bad')
  expect(redact(JSON.stringify({ key: pem }), [pem])).toBe('{"key":"***"}')
})

test("redact hides each line of 8 characters or more of a multi-line secret wherever it stands; shorter ones only with the rest", () => {
  // One line at a time, as a streamed output line shows it.
  expect(redact("web | MIIEvQIBADANBgkqhkiG9w0BAQEFAASC", [pem])).toBe("web | ***")
  expect(redact("  qhkiG9w0  ", [pem])).toBe("  ***  ")
  expect(redact("xyz= is short", [pem])).toBe("xyz= is short")
  // Quoted into one line in another way than JSON's: the long lines are hidden, the short one is not.
  expect(redact(pem.split("\n").join("|"), [pem])).toBe("***|***|***|xyz=|***")
})

test("a store's one redactor hides each stack's own secrets, and keeps hiding a value the stack no longer holds", () => {
  const held: Record<string, string[]> = { shop: ["old-pw"], blog: ["blog-pw"] }
  const store = { secrets: (name: string) => held[name] ?? [] }
  const redactor = redactorFor(store)
  expect(redactorFor(store)).toBe(redactor)
  expect(redactor("shop")("old-pw blog-pw")).toBe("*** blog-pw")
  held.shop = ["new-pw"] // rotated: the old value still runs until the stack is applied
  expect(redactor("shop")("old-pw new-pw")).toBe("*** ***")
  delete held.shop // removed: its last events come after
  expect(redactor("shop")("old-pw new-pw")).toBe("*** ***")
  expect(redactor("other")("old-pw")).toBe("old-pw")
  expect(redactorFor({ secrets: () => [] })("shop")("old-pw")).toBe("old-pw")
})

test("the v1 env file escapes quotes and backslashes inside single quotes", () => {
  const env: EnvVar[] = [
    { key: "A", value: `it's \\ $HOME`, secret: false },
    { key: "B", value: "two\nlines", secret: false },
  ]
  expect(renderEnvFile(env, "v1")).toBe(`A='it\\'s \\\\ $HOME'\nB='two\nlines'\n`)
})

test("the v2 env file keeps plain values literal in single quotes and escapes the rest in double quotes", () => {
  const env: EnvVar[] = [
    { key: "A", value: `a\\b $X`, secret: false },
    { key: "B", value: `it's "$X"\n`, secret: false },
  ]
  expect(renderEnvFile(env, "v2")).toBe(`A='a\\b $X'\nB="it's \\"\\$X\\"\\n"\n`)
})

test("looksSecret: SVC_SECRET_KEYS patterns, * any run, case-insensitive, nothing else special", () => {
  const patterns = ["*PASSWORD*", "*TOKEN*", "API.KEY"]
  expect(["DB_PASSWORD", "password", "GITHUB_TOKEN", "api.key"].filter((k) => looksSecret(k, patterns))).toEqual([
    "DB_PASSWORD",
    "password",
    "GITHUB_TOKEN",
    "api.key",
  ])
  expect(["GREETING", "API_KEY", "PASS"].filter((k) => looksSecret(k, patterns))).toEqual([])
})
