import { expect, test } from "bun:test"
import { gitEnv, lastLine, protocolOf } from "#lib/git/run.ts"

test("a URL's protocol: https, http, ssh (both spellings) and a local path; anything else is 400", () => {
  expect(
    ["https://h/r.git", "http://h/r.git", "ssh://git@h/r.git", "git@h:o/r.git", "/srv/r.git", "file:///srv/r.git"].map(
      protocolOf,
    ),
  ).toEqual(["https", "http", "ssh", "ssh", "file", "file"])
  for (const url of ["ext::sh -c id", "git://h/r.git", "fd::3", "relative/path", "-upload-pack=x"])
    expect(() => protocolOf(url)).toThrow("repository URL")
})

test("the environment allows the one protocol, runs no hook and asks nothing; a token travels only as a header's value", () => {
  const env = gitEnv({ protocol: "https", token: "t0ken" })
  const config = Object.fromEntries(
    Array.from({ length: Number(env.GIT_CONFIG_COUNT) }, (_, i) => [
      env[`GIT_CONFIG_KEY_${i}`],
      env[`GIT_CONFIG_VALUE_${i}`],
    ]),
  )
  expect(config).toMatchObject({
    "protocol.allow": "never",
    "protocol.https.allow": "always",
    "core.hooksPath": "/dev/null",
    "credential.helper": "",
  })
  expect(env).toMatchObject({ GIT_CONFIG_NOSYSTEM: "1", GIT_TERMINAL_PROMPT: "0" })
  expect(config["http.extraHeader"]).toBe(`Authorization: Basic ${btoa("x-access-token:t0ken")}`)
  expect(
    Object.entries(env)
      .filter(([, v]) => v.includes(btoa("x-access-token:t0ken")))
      .map(([k]) => k),
  ).toHaveLength(1)
  expect(gitEnv({ protocol: "file" })).not.toHaveProperty(
    `GIT_CONFIG_KEY_${Number(env.GIT_CONFIG_COUNT) - 1}`,
    "http.extraHeader",
  )
})

test("git's last line without the user part of a URL", () => {
  expect(lastLine("warning\nfatal: unable to access 'https://user:pw@h/r.git/': 401")).toBe(
    "fatal: unable to access 'https://h/r.git/': 401",
  )
  expect(
    lastLine(
      "Host key verification failed.\nfatal: Could not read from remote repository.\n\nPlease make sure you have the correct access rights\nand the repository exists.\n",
    ),
  ).toBe("Host key verification failed. fatal: Could not read from remote repository.")
})
