import { expect, test } from "bun:test"
import { localDigests, normalHost, parseRef, registryOf } from "#lib/engine/reference.ts"

test("references parse as the engine reads them", () => {
  expect(parseRef("nginx")).toEqual({ registry: "docker.io", repository: "library/nginx", tag: "latest" })
  expect(parseRef("bitnami/redis:7.2")).toEqual({ registry: "docker.io", repository: "bitnami/redis", tag: "7.2" })
  expect(parseRef("localhost:5000/team/app:v1")).toEqual({
    registry: "localhost:5000",
    repository: "team/app",
    tag: "v1",
  })
  expect(parseRef("ghcr.io/o/r")).toEqual({ registry: "ghcr.io", repository: "o/r", tag: "latest" })
  expect(parseRef("index.docker.io/library/nginx:1")).toMatchObject({
    registry: "docker.io",
    repository: "library/nginx",
  })
  expect(parseRef("[::1]:5000/x")).toMatchObject({ registry: "[::1]:5000", repository: "x" })
  const digest = `sha256:${"a".repeat(64)}`
  expect(parseRef(`registry.example:443/x@${digest}`)).toEqual({
    registry: "registry.example:443",
    repository: "x",
    tag: "latest",
    digest,
  })
  for (const bad of ["UPPER", "a//b", "x:tag with space", "x@sha256:short", "evil host.io:1/x", "a.b:99x/c"])
    expect(() => parseRef(bad)).toThrow("is not a valid image reference")
  expect(() => parseRef(digest)).toThrow("is an image id")
})

test("the registry of a reference, Docker Hub's names folded into docker.io", () => {
  expect(registryOf("registry-1.docker.io/library/busybox")).toBe("docker.io")
  expect(registryOf("Registry.LAN:5000/app")).toBe("registry.lan:5000")
  expect(registryOf("not a reference")).toBeUndefined()
  expect(normalHost("INDEX.docker.io")).toBe("docker.io")
})

test("local digests are matched by repository, Docker Hub's short and long names alike", () => {
  const repoDigests = ["nginx@sha256:1", "docker.io/library/nginx@sha256:2", "127.0.0.1:5000/nginx@sha256:3"]
  expect(localDigests(parseRef("nginx:1.25"), repoDigests)).toEqual(["sha256:1", "sha256:2"])
  expect(localDigests(parseRef("127.0.0.1:5000/nginx"), repoDigests)).toEqual(["sha256:3"])
})
