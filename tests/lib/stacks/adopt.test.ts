import { expect, test } from "bun:test"
import { interpolatedKeys, parseEnvFile, projectSource, rewriteBinds, servicePlans } from "#lib/stacks/adopt.ts"
import type { ContainerSummary } from "#lib/engine/client.ts"

test("projectSource: v1 names config files relative to the working dir, v2 absolute; .env by default", () => {
  const v1 = {
    "com.docker.compose.project.working_dir": "/srv/shop",
    "com.docker.compose.project.config_files": "compose.yaml,override.yaml",
  }
  expect(projectSource(v1)).toEqual({
    working_dir: "/srv/shop",
    config_files: ["/srv/shop/compose.yaml", "/srv/shop/override.yaml"],
    env_file: "/srv/shop/.env",
  })
  const v2 = {
    ...v1,
    "com.docker.compose.project.config_files": "/srv/shop/compose.yaml",
    "com.docker.compose.project.environment_file": "/srv/shop/prod.env",
  }
  expect(projectSource(v2)).toEqual({
    working_dir: "/srv/shop",
    config_files: ["/srv/shop/compose.yaml"],
    env_file: "/srv/shop/prod.env",
  })
})

test("parseEnvFile: comments, export, quotes as compose reads them", () => {
  const text = `# a comment\nexport A=1\nB = two words # note\nC='it''s $literal'\nD="line\\nnext \\"q\\""\n\nnot a line\nE=`
  expect(parseEnvFile(text)).toEqual({ A: "1", B: "two words", C: "it''s $literal", D: 'line\nnext "q"', E: "" })
})

test("interpolatedKeys: $VAR, ${VAR}, defaults (nested too), and not $$", () => {
  const keys = interpolatedKeys("image: app:${TAG:-${FALLBACK:-1}}\ncommand: echo $$HOME $USER ${PORT?need it}")
  expect([...keys].sort()).toEqual(["FALLBACK", "PORT", "TAG", "USER"])
})

test("rewriteBinds: relative binds made absolute where allowed, refused elsewhere; named volumes and comments kept", async () => {
  const file = `services:
  web:
    image: nginx # the front
    volumes:
      - ./site:/usr/share/nginx/html:ro
      - data:/data
      - type: bind
        source: ../logs
        target: /logs
      - /abs:/abs
`
  const { compose, binds } = await rewriteBinds(file, "/srv/shop", (p) => p.startsWith("/srv/shop/"))
  expect(binds).toEqual([
    { service: "web", source: "./site", path: "/srv/shop/site", action: "rewritten" },
    { service: "web", source: "../logs", path: "/srv/logs", action: "refused" },
  ])
  expect(compose).toContain("- /srv/shop/site:/usr/share/nginx/html:ro")
  expect(compose).toContain("source: ../logs")
  expect(compose).toContain("image: nginx # the front")
  expect(await rewriteBinds("services:\n  a:\n    image: x\n", "/srv", () => true)).toEqual({
    compose: "services:\n  a:\n    image: x\n",
    binds: [],
  })
})

const container = (id: string, service: string, hash: string) =>
  ({
    Id: id,
    Labels: { "com.docker.compose.service": service, "com.docker.compose.config-hash": hash },
  }) as unknown as ContainerSummary
test("servicePlans: keep where every container's hash matches compose's, recreate, create and remove otherwise", () => {
  const a = "a".repeat(64)
  const b = "b".repeat(64)
  const output = `web ${a}\ndb ${a}\nnew ${b}\nWARNING: something else\n`
  const plans = servicePlans(output, [container("1", "web", a), container("2", "db", b), container("3", "old", a)])
  expect(plans).toEqual([
    { name: "db", action: "recreate", containers: ["2"] },
    { name: "new", action: "create", containers: [] },
    { name: "old", action: "remove", containers: ["3"] },
    { name: "web", action: "keep", containers: ["1"] },
  ])
})
