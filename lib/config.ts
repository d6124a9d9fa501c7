// Service configuration, read once from the environment. Pure: takes the env, returns the config.
import { join } from "node:path"

export interface Config {
  addr: { host: string; port: number }
  dataDir: string
  dockerHost: string
  logsTail: number
  corsOrigins: string[]
  allowedHosts: string[]
  transferImage: string
  maxJsonBody: number
}

export const defaults = {
  addr: "127.0.0.1:8080",
  dockerHost: "unix:///var/run/docker.sock",
  logsTail: 100,
  transferImage: "alpine:3",
  maxJsonBody: 32 * 1024 * 1024,
}

export class ConfigError extends Error {}

export function parseAddr(addr: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(addr)
  const port = m ? Number(m[3]) : NaN
  if (!m || port > 65535) throw new ConfigError(`SVC_ADDR must be host:port, got "${addr}"`)
  return { host: m[1] ?? (m[2] || "0.0.0.0"), port }
}

function list(value: string | undefined): string[] {
  return (value ?? "").split(",").map((s) => s.trim()).filter(Boolean)
}

function positiveInt(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === "") return fallback
  const n = Number(value)
  if (!Number.isInteger(n) || n < 0) throw new ConfigError(`${name} must be a whole number, got "${value}"`)
  return n
}

export function loadConfig(env: Record<string, string | undefined>, cwd = process.cwd()): Config {
  return {
    addr: parseAddr(env.SVC_ADDR || defaults.addr),
    dataDir: env.SVC_DATA || join(cwd, ".data"),
    dockerHost: env.DOCKER_HOST || defaults.dockerHost,
    logsTail: positiveInt("SVC_LOGS_TAIL", env.SVC_LOGS_TAIL, defaults.logsTail),
    corsOrigins: list(env.SVC_CORS_ORIGINS),
    allowedHosts: list(env.SVC_ALLOWED_HOSTS),
    transferImage: env.SVC_TRANSFER_IMAGE || defaults.transferImage,
    maxJsonBody: positiveInt("SVC_MAX_JSON_BODY", env.SVC_MAX_JSON_BODY, defaults.maxJsonBody),
  }
}
