import { expect, test } from "bun:test"
import { ConfigError, loadConfig } from "#lib/service/config.ts"

test("scan, update and metrics settings: defaults and parsing", () => {
  const d = loadConfig({})
  expect([d.scanner, d.scanTimeout, d.insecureRegistries, d.updateInterval, d.metrics, d.metricsToken]).toEqual([
    "auto",
    600,
    [],
    0,
    false,
    undefined,
  ])
  const c = loadConfig({
    SVC_SCANNER: "grype",
    SVC_SCAN_TIMEOUT: "30",
    SVC_INSECURE_REGISTRIES: "reg.lan:5000, 10.0.0.9:5000",
    SVC_UPDATE_INTERVAL: "3600",
    SVC_METRICS: "on",
    SVC_METRICS_TOKEN: "t",
  })
  expect([c.scanner, c.scanTimeout, c.insecureRegistries, c.updateInterval, c.metrics, c.metricsToken]).toEqual([
    "grype",
    30,
    ["reg.lan:5000", "10.0.0.9:5000"],
    3600,
    true,
    "t",
  ])
  expect(() => loadConfig({ SVC_SCANNER: "clair" })).toThrow(
    'SVC_SCANNER must be one of auto, trivy, grype, got "clair"',
  )
  expect(() => loadConfig({ SVC_METRICS: "yes" })).toThrow("SVC_METRICS must be one of off, on")
  expect(() => loadConfig({ SVC_SCAN_TIMEOUT: "-1" })).toThrow("SVC_SCAN_TIMEOUT must be a whole number")
})

test("compose deadlines: 15 minutes for a run, a minute for config by default; at least a second", () => {
  expect(loadConfig({}).composeTimeouts).toEqual({ run: 900, config: 60 })
  expect(loadConfig({ SVC_COMPOSE_TIMEOUT: "5", SVC_COMPOSE_CONFIG_TIMEOUT: "2" }).composeTimeouts).toEqual({
    run: 5,
    config: 2,
  })
  expect(() => loadConfig({ SVC_COMPOSE_TIMEOUT: "0" })).toThrow("SVC_COMPOSE_TIMEOUT must be at least 1 (seconds)")
  expect(() => loadConfig({ SVC_COMPOSE_CONFIG_TIMEOUT: "soon" })).toThrow(
    "SVC_COMPOSE_CONFIG_TIMEOUT must be a whole number",
  )
})

test("SVC_SECRET_KEYS: the key patterns an adoption flags secret, a default list when unset", () => {
  expect(loadConfig({}).secretKeys).toEqual(["*PASSWORD*", "*SECRET*", "*TOKEN*", "*KEY*"])
  expect(loadConfig({ SVC_SECRET_KEYS: "*PASS*, API_*" }).secretKeys).toEqual(["*PASS*", "API_*"])
})

test("SVC_AUTH: off by default, modes combined with commas, proxies as CIDRs, groups mapped to roles", () => {
  expect(loadConfig({}).auth.modes.size).toBe(0)
  expect(loadConfig({ SVC_AUTH: "off" }).auth.modes.size).toBe(0)
  const c = loadConfig({
    SVC_AUTH: "local, proxy",
    SVC_AUTH_TRUSTED_PROXIES: "10.0.0.0/8, ::1",
    SVC_AUTH_ROLE_MAP: "admins=admin, ops=operator, *=viewer",
    SVC_AUTH_SESSION_IDLE: "600",
  })
  expect([...c.auth.modes]).toEqual(["local", "proxy"])
  expect(c.auth.trustedProxies).toEqual(["10.0.0.0/8", "::1"])
  expect(c.auth.roleMap).toEqual([
    { group: "admins", role: "admin" },
    { group: "ops", role: "operator" },
    { group: "*", role: "viewer" },
  ])
  expect(c.auth.session).toEqual({ idle: 600, max: 7 * 24 * 3600 })
  expect(() => loadConfig({ SVC_AUTH: "ldap" })).toThrow("SVC_AUTH must be off, or local, oidc and proxy")
  expect(() => loadConfig({ SVC_AUTH: "off,local" })).toThrow("SVC_AUTH must be off")
  expect(() => loadConfig({ SVC_AUTH: "proxy" })).toThrow("SVC_AUTH=proxy needs SVC_AUTH_TRUSTED_PROXIES")
  expect(() => loadConfig({ SVC_AUTH: "proxy", SVC_AUTH_TRUSTED_PROXIES: "10.0.0.0/33" })).toThrow(
    "SVC_AUTH_TRUSTED_PROXIES",
  )
  expect(() => loadConfig({ SVC_AUTH: "local", SVC_AUTH_ROLE_MAP: "admins=root" })).toThrow(
    "SVC_AUTH_ROLE_MAP takes group=role",
  )
})

test("the host terminal is off unless SVC_HOST_SHELL names a user; a name that is no user name and a relative transcript folder stop the start", () => {
  expect(loadConfig({}).hostShell).toEqual({ user: undefined, idleSeconds: 900, transcripts: undefined })
  expect(
    loadConfig({ SVC_HOST_SHELL: "ops", SVC_HOST_SHELL_IDLE: "60", SVC_HOST_SHELL_TRANSCRIPTS: "/var/log/t" })
      .hostShell,
  ).toEqual({
    user: "ops",
    idleSeconds: 60,
    transcripts: "/var/log/t",
  })
  for (const bad of ["ops; rm -rf /", "-root", "a b"])
    expect(() => loadConfig({ SVC_HOST_SHELL: bad })).toThrow(ConfigError)
  expect(() => loadConfig({ SVC_HOST_SHELL: "ops", SVC_HOST_SHELL_TRANSCRIPTS: "logs" })).toThrow(ConfigError)
})
