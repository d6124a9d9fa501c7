import { expect, test } from "bun:test"
import { addressOf, covers, parseAddress } from "#lib/registries/address.ts"

test("an address is a host as references name it and a path prefix; a scheme is read, never kept", () => {
  expect(parseAddress("ghcr.io/My-Org/")).toEqual({ host: "ghcr.io", prefix: "my-org" })
  expect(parseAddress("https://registry.lan:5000")).toEqual({ host: "registry.lan:5000", prefix: "", scheme: "https" })
  expect(parseAddress("http://localhost:5000/a/b")).toEqual({ host: "localhost:5000", prefix: "a/b", scheme: "http" })
  expect(parseAddress("https://index.docker.io/v1/")).toEqual({ host: "docker.io", prefix: "", scheme: "https" })
  expect(parseAddress("docker.io/myuser")).toEqual({ host: "docker.io", prefix: "myuser" })
  expect(parseAddress("[fd00::1]:5000")).toEqual({ host: "[fd00::1]:5000", prefix: "" })
  expect(addressOf({ host: "ghcr.io", prefix: "my-org" })).toBe("ghcr.io/my-org")
  for (const bad of [
    "",
    "registry",
    "ftp://r.lan",
    "r.lan:0",
    "r.lan:70000",
    "r.lan/UPPER CASE",
    "-r.lan",
    "r.lan/a//b",
  ])
    expect(() => parseAddress(bad)).toThrow(/registry address/)
  expect(() => parseAddress("https://me:pw@ghcr.io/x")).toThrow(
    "a registry address holds no credentials: give them as the user name and password, which are kept as a secret",
  )
})

test("a registry covers the images of its host under its prefix, component by component", () => {
  const team = { host: "registry.lan:5000", prefix: "team" }
  expect(covers(team, "registry.lan:5000/team/app:1")).toBe(true)
  expect(covers(team, "registry.lan:5000/team")).toBe(true)
  expect(covers(team, "registry.lan:5000/teammate/app")).toBe(false)
  expect(covers(team, "registry.lan:5001/team/app")).toBe(false)
  expect(covers({ host: "docker.io", prefix: "" }, "nginx")).toBe(true)
  expect(covers({ host: "docker.io", prefix: "myuser" }, "myuser/app:2")).toBe(true)
  expect(covers({ host: "docker.io", prefix: "myuser" }, "index.docker.io/myuser/app")).toBe(true)
  expect(covers({ host: "docker.io", prefix: "myuser" }, "nginx")).toBe(false)
})
