// Service configuration, read once from the environment. Pure: takes the env, returns the config.
import { isAbsolute, join } from "node:path"
import { defaultKeyFile, type KeySettings } from "../data/secret-key.ts"
import type { TtsConfig } from "../tts/speaker.ts"
import { isVoiceName } from "../tts/voice.ts"
import { parseTarget } from "../updates/notify.ts"
import { MCP_MODES, type McpConfig } from "../mcp/config.ts"
import { AUTH_MODES, MFA_POLICIES, type AuthConfig, type AuthMode, type RoleRule } from "../auth/config.ts"
import { trustList } from "../auth/proxy.ts"
import { oidcSettings } from "../auth/oidc.ts"
import { isRole } from "../auth/roles.ts"
import type { HostShellConfig } from "../host/terminal.ts"
import { defaultOf, VARIABLES, type NumberVariable, type Variable, type VariableName } from "./variables.ts"

type Env = Record<string, string | undefined>

export interface Config {
  addr: { host: string; port: number }
  dataDir: string
  dockerHost: string
  /** DOCKER_API_VERSION: the Engine API version to speak instead of negotiating one, as for the docker CLI. */
  dockerApiVersion: string | undefined
  /**
   * The environment the CLI tools (compose, a scanner) run with: the service's PATH, HOME and
   * DOCKER_CONFIG (where the docker CLI finds its plugins and registry credentials), nothing else.
   */
  toolEnv: Record<string, string>
  /** The environment a scanner binary runs with: the service's own, whole (its TRIVY_* or GRYPE_* settings, proxies, PATH). */
  scannerEnv: Record<string, string | undefined>
  logsTail: number
  /** SVC_HOST_SHELL*: the host terminal (lib/host), off without a user. */
  hostShell: HostShellConfig
  corsOrigins: string[]
  allowedHosts: string[]
  transferImage: string
  maxJsonBody: number
  /** Milliseconds a node probe (and each node-to-node call) may take. */
  probeTimeoutMs: number
  /** Which vulnerability scanner runs: trivy, grype, or auto (the first on PATH, else Trivy's image). */
  scanner: "trivy" | "grype" | "auto"
  /** Seconds one scan may take before it is stopped. */
  scanTimeout: number
  /** SVC_COMPOSE_TIMEOUT, SVC_COMPOSE_CONFIG_TIMEOUT: seconds a compose run (up, pull, down...) and a `config` may take before compose is stopped. */
  composeTimeouts: { run: number; config: number }
  /** SVC_DOCKER_CLI: the docker CLI swarm stacks run (`docker stack`); unset, one with `stack config` is looked for (lib/stacks/stack-cli.ts). */
  dockerCli: string | undefined
  /** Host folders stacks may mount besides their own folder (bind sources, env files, ...), "/" allowing any; a file or a socket allows that path only. */
  bindRoots: string[]
  /** Where the secret key comes from (SVC_SECRET_KEY, the systemd credential, SVC_SECRET_KEY_FILE): lib/data/secret-key.ts. */
  secretKey: KeySettings
  /** SVC_SECRET_KEYS: name patterns (`*` any run, case-insensitive) of environment keys an adoption flags secret. */
  secretKeys: string[]
  /** Registries (host or host:port) spoken to over plain http besides loopback ones. */
  insecureRegistries: string[]
  /** Seconds between periodic update checks; 0 turns them off. */
  updateInterval: number
  /** SVC_UPDATE_WATCH: seconds a guarded update watches the stack's health when the request names none. */
  updateWatch: number
  /** SVC_GIT_MAX_FILE_BYTES: the largest file a git stack's sync reads out of its repository (lib/git/tree.ts). */
  gitMaxFileBytes: number
  /** SVC_GIT_MAX_FETCH_BYTES: the largest pack a git stack's fetch may write (lib/git/tree.ts). */
  gitMaxFetchBytes: number
  /** SVC_NOTIFY_URLS: webhook (https://...) and ntfy (ntfy+https://host/topic) addresses for notifications (lib/updates/notify.ts). */
  notifyUrls: string[]
  /** SVC_ALERT_POLL and SVC_ALERT_API_URLS (lib/alerts). */
  alerts: { pollSeconds: number; apiBases: Record<string, string> }
  metrics: boolean
  /** SVC_METRICS_CONTAINERS: per-container gauges on /metrics (from the stats sampler). */
  metricsContainers: boolean
  /** Container stats (lib/stats): seconds between samples, and whether an hour of history is kept. */
  stats: { interval: number; history: boolean }
  metricsToken: string | undefined
  /** SVC_RESPONSE_DRIFT_LOG: a file each answer that does not fit its route's response schema is logged to (development and tests). */
  responseDriftLog: string | undefined
  /** The MCP endpoint; null when SVC_MCP is unset (then /mcp is not routed). */
  mcp: McpConfig | null
  /** Text-to-speech (POST /api/synthesize). */
  tts: TtsConfig
  /** Sign-in, roles and the audit log (SVC_AUTH, off by default: lib/auth). */
  auth: AuthConfig
}

export class ConfigError extends Error {}

export function parseAddr(addr: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(addr)
  const port = m ? Number(m[3]) : NaN
  if (!m || port > 65535) throw new ConfigError(`SVC_ADDR must be host:port, got "${addr}"`)
  return { host: m[1] ?? (m[2] || "0.0.0.0"), port }
}

function toolEnv(env: Record<string, string | undefined>): Record<string, string> {
  const keep = {
    PATH: env.PATH || "/usr/local/bin:/usr/bin:/bin",
    HOME: env.HOME || "/root",
    DOCKER_CONFIG: env.DOCKER_CONFIG,
  }
  return Object.fromEntries(Object.entries(keep).filter((e): e is [string, string] => !!e[1]))
}

function apiVersion(value: string | undefined): string | undefined {
  if (!value) return undefined
  if (!/^1\.\d{1,3}$/.test(value))
    throw new ConfigError(`DOCKER_API_VERSION must be an API version such as 1.45, got "${value}"`)
  return value
}

function list(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
}

function absolutePaths(name: string, value: string | undefined): string[] {
  const paths = list(value)
  const relative = paths.find((p) => !p.startsWith("/"))
  if (relative !== undefined) throw new ConfigError(`${name} takes absolute paths, got "${relative}"`)
  return paths
}

function notifyUrls(value: string | undefined): string[] {
  const urls = list(value)
  for (const u of urls) {
    try {
      parseTarget(u)
    } catch (err) {
      throw new ConfigError(
        `SVC_NOTIFY_URLS takes http(s):// webhook and ntfy+https:// addresses: ${err instanceof Error ? err.message : err}`,
      )
    }
  }
  return urls
}

/** SVC_ALERT_API_URLS: `kind=url` pairs, each an http(s) URL. */
function alertApiBases(value: string | undefined): Record<string, string> {
  const out: Record<string, string> = {}
  for (const pair of list(value)) {
    const [kind, url] = [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)]
    if (!["discord", "slack", "telegram", "pushover"].includes(kind) || !/^https?:\/\/[^\s/]+/.test(url))
      throw new ConfigError(
        `SVC_ALERT_API_URLS takes kind=url pairs (discord, slack, telegram, pushover), got "${pair}"`,
      )
    out[kind] = url.replace(/\/+$/, "")
  }
  return out
}

/** A whole number, 0 or more; the table's default when unset. */
function positiveInt(env: Env, name: NumberVariable): number {
  const value = env[name]
  if (value === undefined || value === "") return defaultOf(name)
  const n = Number(value)
  if (!Number.isInteger(n) || n < 0) throw new ConfigError(`${name} must be a whole number, got "${value}"`)
  return n
}

/** A deadline in seconds: a whole number, at least 1. */
function seconds(env: Env, name: NumberVariable): number {
  const n = positiveInt(env, name)
  if (n < 1) throw new ConfigError(`${name} must be at least 1 (seconds)`)
  return n
}

/** One of the allowed words; the table's default when unset. */
function oneOf<T extends string>(env: Env, name: VariableName, allowed: readonly T[]): T {
  const value = env[name] || (VARIABLES[name] as Variable).default
  if (!allowed.includes(value as T))
    throw new ConfigError(`${name} must be one of ${allowed.join(", ")}, got "${value}"`)
  return value as T
}

function mcpConfig(env: Record<string, string | undefined>, addr: Config["addr"]): McpConfig | null {
  if (!env.SVC_MCP) return null
  const loopback = ["localhost", "127.0.0.1", "[::1]"].map((h) => `${h}:${addr.port}`)
  return {
    mode: oneOf(env, "SVC_MCP", MCP_MODES),
    allowedHosts: env.SVC_MCP_ALLOWED_HOSTS ? list(env.SVC_MCP_ALLOWED_HOSTS) : loopback,
    allowedOrigins: list(env.SVC_MCP_ALLOWED_ORIGINS),
    sessionTtl: positiveInt(env, "SVC_MCP_SESSION_TTL"),
  }
}

function ttsConfig(env: Record<string, string | undefined>): TtsConfig {
  const concurrency = positiveInt(env, "SVC_TTS_CONCURRENCY")
  if (concurrency < 1) throw new ConfigError("SVC_TTS_CONCURRENCY must be at least 1")
  const voice = env.SVC_TTS_VOICE || defaultOf("SVC_TTS_VOICE")
  if (!isVoiceName(voice))
    throw new ConfigError(`SVC_TTS_VOICE must be an Edge voice name such as en-US-AriaNeural, got "${voice}"`)
  return {
    backend: oneOf(env, "SVC_TTS_ENGINE", ["auto", "edge", "offline", "espeak"] as const),
    timeoutMs: positiveInt(env, "SVC_TTS_TIMEOUT_MS"),
    timeoutMsPerChar: positiveInt(env, "SVC_TTS_TIMEOUT_MS_PER_CHAR"),
    workerMemoryMb: positiveInt(env, "SVC_TTS_WORKER_MEMORY_MB"),
    maxChars: positiveInt(env, "SVC_TTS_MAX_CHARS"),
    concurrency,
    voice,
    edgeTimeoutMs: positiveInt(env, "SVC_TTS_EDGE_TIMEOUT_MS"),
    workerEnv: toolEnv(env),
  }
}

function statsConfig(env: Record<string, string | undefined>): Config["stats"] {
  const interval = positiveInt(env, "SVC_STATS_INTERVAL")
  if (interval < 1) throw new ConfigError("SVC_STATS_INTERVAL must be at least 1 (seconds)")
  return { interval, history: oneOf(env, "SVC_STATS_HISTORY", ["on", "off"] as const) === "on" }
}

function atLeastOne(env: Env, name: NumberVariable): number {
  const n = positiveInt(env, name)
  if (n < 1) throw new ConfigError(`${name} must be at least 1`)
  return n
}

function roleMap(value: string | undefined): RoleRule[] {
  return list(value).map((entry) => {
    const [group, role] = entry.split("=").map((s) => s.trim())
    if (!group || !isRole(role))
      throw new ConfigError(
        `SVC_AUTH_ROLE_MAP takes group=role entries (roles: viewer, operator, admin; group * for anyone), got "${entry}"`,
      )
    return { group, role }
  })
}

function oidcConfig(env: Record<string, string | undefined>): AuthConfig["oidc"] {
  try {
    return oidcSettings(env)
  } catch (err) {
    throw new ConfigError((err as Error).message)
  }
}

/** SVC_PUBLIC_URL: an http(s) address; its origin is kept. */
function publicUrl(value: string | undefined): string | undefined {
  if (!value) return undefined
  const url = URL.parse(value)
  if (!url || !["http:", "https:"].includes(url.protocol) || url.username || url.password)
    throw new ConfigError(`SVC_PUBLIC_URL must be the http(s):// address people open, got "${value}"`)
  return url.origin
}

function authConfig(env: Record<string, string | undefined>): AuthConfig {
  const named = list(env.SVC_AUTH)
  const modes = new Set(named.filter((m) => m !== "off") as AuthMode[])
  const stray = named.find((m) => m !== "off" && !AUTH_MODES.includes(m as AuthMode))
  if (stray !== undefined || (named.includes("off") && modes.size))
    throw new ConfigError(`SVC_AUTH must be off, or local, oidc and proxy combined with commas, got "${env.SVC_AUTH}"`)
  const trustedProxies = list(env.SVC_AUTH_TRUSTED_PROXIES)
  try {
    trustList(trustedProxies)
  } catch (err) {
    throw new ConfigError(`SVC_AUTH_TRUSTED_PROXIES: ${(err as Error).message}`)
  }
  if (modes.has("proxy") && !trustedProxies.length)
    throw new ConfigError(
      "SVC_AUTH=proxy needs SVC_AUTH_TRUSTED_PROXIES: the addresses of the proxies whose Remote-User headers are believed",
    )
  const idle = seconds(env, "SVC_AUTH_SESSION_IDLE")
  return {
    modes,
    trustedProxies,
    roleMap: roleMap(env.SVC_AUTH_ROLE_MAP),
    cookieSecure: oneOf(env, "SVC_AUTH_COOKIE_SECURE", ["off", "on"] as const) === "on",
    session: { idle, max: seconds(env, "SVC_AUTH_SESSION_MAX") },
    audit: { maxBytes: atLeastOne(env, "SVC_AUTH_AUDIT_MAX_BYTES"), files: atLeastOne(env, "SVC_AUTH_AUDIT_FILES") },
    mfa: oneOf(env, "SVC_AUTH_MFA", MFA_POLICIES),
    publicUrl: publicUrl(env.SVC_PUBLIC_URL),
    oidc: modes.has("oidc") ? oidcConfig(env) : null,
  }
}

function hostShellConfig(env: Env): HostShellConfig {
  const user = env.SVC_HOST_SHELL || undefined
  if (user && !/^[a-z_][a-z0-9_.-]{0,31}\$?$/i.test(user))
    throw new ConfigError(`SVC_HOST_SHELL must be a user name, not ${JSON.stringify(user)}`)
  const transcripts = env.SVC_HOST_SHELL_TRANSCRIPTS || undefined
  if (transcripts && !transcripts.startsWith("/"))
    throw new ConfigError("SVC_HOST_SHELL_TRANSCRIPTS must be an absolute path")
  return { user, idleSeconds: positiveInt(env, "SVC_HOST_SHELL_IDLE"), transcripts }
}

/** The secret key's sources (lib/data/secret-key.ts). */
function keySettings(env: Env, dataDir: string): KeySettings {
  const file = env.SVC_SECRET_KEY_FILE || defaultKeyFile(dataDir)
  if (!isAbsolute(file)) throw new ConfigError(`SVC_SECRET_KEY_FILE takes an absolute path, got "${file}"`)
  return {
    dataDir,
    key: env.SVC_SECRET_KEY || undefined,
    previous: env.SVC_SECRET_KEY_PREVIOUS || undefined,
    file,
    credentials: env.CREDENTIALS_DIRECTORY || undefined,
  }
}

export function loadConfig(env: Record<string, string | undefined>, cwd = process.cwd()): Config {
  const addr = parseAddr(env.SVC_ADDR || defaultOf("SVC_ADDR"))
  return {
    addr,
    dataDir: env.SVC_DATA || join(cwd, ".data"),
    dockerHost: env.DOCKER_HOST || defaultOf("DOCKER_HOST"),
    dockerApiVersion: apiVersion(env.DOCKER_API_VERSION),
    toolEnv: toolEnv(env),
    scannerEnv: env,
    logsTail: positiveInt(env, "SVC_LOGS_TAIL"),
    hostShell: hostShellConfig(env),
    corsOrigins: list(env.SVC_CORS_ORIGINS),
    allowedHosts: list(env.SVC_ALLOWED_HOSTS),
    transferImage: env.SVC_TRANSFER_IMAGE || defaultOf("SVC_TRANSFER_IMAGE"),
    maxJsonBody: positiveInt(env, "SVC_MAX_JSON_BODY"),
    probeTimeoutMs: positiveInt(env, "SVC_PROBE_TIMEOUT_MS"),
    mcp: mcpConfig(env, addr),
    scanner: oneOf(env, "SVC_SCANNER", ["auto", "trivy", "grype"] as const),
    scanTimeout: positiveInt(env, "SVC_SCAN_TIMEOUT"),
    composeTimeouts: { run: seconds(env, "SVC_COMPOSE_TIMEOUT"), config: seconds(env, "SVC_COMPOSE_CONFIG_TIMEOUT") },
    dockerCli: env.SVC_DOCKER_CLI || undefined,
    insecureRegistries: list(env.SVC_INSECURE_REGISTRIES),
    bindRoots: absolutePaths("SVC_BIND_ROOTS", env.SVC_BIND_ROOTS),
    secretKeys: env.SVC_SECRET_KEYS ? list(env.SVC_SECRET_KEYS) : [...defaultOf("SVC_SECRET_KEYS")],
    secretKey: keySettings(env, env.SVC_DATA || join(cwd, ".data")),
    updateInterval: positiveInt(env, "SVC_UPDATE_INTERVAL"),
    updateWatch: positiveInt(env, "SVC_UPDATE_WATCH"),
    gitMaxFileBytes: positiveInt(env, "SVC_GIT_MAX_FILE_BYTES"),
    gitMaxFetchBytes: positiveInt(env, "SVC_GIT_MAX_FETCH_BYTES"),
    notifyUrls: notifyUrls(env.SVC_NOTIFY_URLS),
    alerts: { pollSeconds: atLeastOne(env, "SVC_ALERT_POLL"), apiBases: alertApiBases(env.SVC_ALERT_API_URLS) },
    metrics: oneOf(env, "SVC_METRICS", ["off", "on"] as const) === "on",
    metricsToken: env.SVC_METRICS_TOKEN || undefined,
    responseDriftLog: env.SVC_RESPONSE_DRIFT_LOG || undefined,
    metricsContainers: oneOf(env, "SVC_METRICS_CONTAINERS", ["off", "on"] as const) === "on",
    stats: statsConfig(env),
    tts: ttsConfig(env),
    auth: authConfig(env),
  }
}
