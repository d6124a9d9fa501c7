import { afterAll, expect, test } from "bun:test"
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { parse } from "yaml"
import { checkHostPaths, hostPaths } from "../../lib/host-paths.ts"

const base = mkdtempSync(join(tmpdir(), "hm-host-paths-"))
const projectDir = join(base, "stacks", "web")
const shared = join(base, "shared")
mkdirSync(join(projectDir, "data"), { recursive: true })
mkdirSync(shared)
afterAll(() => rmSync(base, { recursive: true, force: true }))

const p = { project: "web", env: { CONF: "../..", SAFE: "conf" }, projectDir }
const service = (lines: string) => parse(`services:\n  app:\n    image: x\n${lines}`)
const check = (model: unknown, roots: string[] = []) => () => checkHostPaths(model, p, roots)

test("every place a compose file names a host path is found", () => {
  const model = parse(`services:
  app:
    image: x
    volumes: ["./data:/data", {type: bind, source: /srv, target: /srv}, "named:/n"]
    env_file: [a.env, {path: /etc/b.env}]
    build: {context: ./src}
volumes:
  named: {}
  dev: {driver_opts: {type: none, o: bind, device: /mnt/dev}}
  nfs: {driver_opts: {type: nfs, o: "addr=10.0.0.1", device: ":/export"}}
secrets:
  s: {file: ./s.txt}
configs:
  c: {file: /etc/c.conf}
`)
  expect(hostPaths(model, p).map((h) => [h.where, h.path])).toEqual([
    ["service app volumes", join(projectDir, "data")],
    ["service app volumes", "/srv"],
    ["volume dev device", "/mnt/dev"],
    ["secrets s file", "./s.txt"],
    ["configs c file", "/etc/c.conf"],
    ["service app env_file", "a.env"],
    ["service app env_file", "/etc/b.env"],
    ["service app build", "./src"],
  ])
})

test("paths inside the stack's folder pass, whether it exists yet or not", () => {
  expect(check(service(`    volumes: ["./data:/data", "./new/deeper:/x", "./\${SAFE}:/c"]\n    env_file: .env`))).not.toThrow()
})

test("/, /etc, ../.., a variable leading out, ~ and a root's neighbour are refused", () => {
  for (const src of ["/:/host", "/etc:/etc:ro", "../..:/up", "./${CONF}:/up", "~/.ssh:/k", `${shared}-evil:/x`])
    expect(check(service(`    volumes: ["${src}"]`), [shared])).toThrow(/host_path_refused|outside the stack's folder/)
  expect(check(parse(`secrets:\n  s: {file: /etc/shadow}`))).toThrow("secrets s file")
  expect(check(parse(`volumes:\n  d: {driver_opts: {type: none, o: bind, device: /}}`))).toThrow("volume d device")
})

test("a symlink inside the stack folder that leads out is followed and refused", () => {
  symlinkSync("/etc", join(projectDir, "data", "escape"))
  expect(check(service(`    volumes: ["./data/escape:/x"]`))).toThrow("outside")
})

test("SVC_BIND_ROOTS lets a stack mount under the roots it names; / allows any", () => {
  expect(check(service(`    volumes: ["${shared}/sub:/s"]`), [shared])).not.toThrow()
  expect(check(service(`    volumes: ["/etc:/etc"]`), ["/"])).not.toThrow()
})
