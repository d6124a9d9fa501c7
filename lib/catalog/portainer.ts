// Portainer's template lists (format versions 2 and 3, and the bare array of the first): container
// templates (type 1) become a stack of one service, written here as a compose file; stack templates
// (type 2, a swarm stack, and 3, a compose stack) name a repository and the compose file's path in it,
// fetched when the template is previewed or installed. Their `env` entries become the template's
// variables (a `select` a choice, a `preset` a fixed value); a published port's host side becomes a
// variable too. A bind to a host path becomes a named volume (the catalog keeps an app's data in
// volumes, which backups and copies carry), except a bind of the host's root or of its devices and
// runtime folders (/dev, /proc, /sys, /run), which stays as written for the guard to refuse.
import { stringify } from "yaml"
import {
  categories,
  httpUrl,
  LIMITS,
  list,
  obj,
  plainText,
  slug,
  text,
  variable,
  type Template,
  type Variable,
} from "./template.ts"

/** Keys that name a secret in a list that cannot say so itself. */
const SECRET_KEY = /pass|secret|token|api_?key|private|pwd/i
const RESTART = new Set(["no", "always", "on-failure", "unless-stopped"])
const IMAGE = /^[A-Za-z0-9][A-Za-z0-9._\/:@-]{0,254}$/
const PORT = /^(?:(\d{1,5}):)?(\d{1,5})(?:\/(tcp|udp))?$/
const KEPT_BINDS = /^\/(?:$|dev(?:\/|$)|proc(?:\/|$)|sys(?:\/|$)|run(?:\/|$)|var\/run(?:\/|$))/

export class FormatError extends Error {}

/** The templates of a Portainer list (parsed JSON), with what was left out and why. */
export function fromPortainer(doc: unknown): { templates: Template[]; warnings: string[] } {
  const version = Array.isArray(doc) ? "1" : String(obj(doc).version ?? "")
  if (!["1", "2", "3"].includes(version))
    throw new FormatError(
      `not a template list of a known format: "version" is ${JSON.stringify(version.slice(0, 20))}, not "2" or "3"`,
    )
  const entries = Array.isArray(doc) ? doc : obj(doc).templates
  if (!Array.isArray(entries)) throw new FormatError('not a template list: no "templates" array')
  if (entries.length > LIMITS.templates)
    throw new FormatError(`the list holds ${entries.length} templates; a source holds at most ${LIMITS.templates}`)
  const taken = new Set<string>()
  const warnings: string[] = []
  const templates = entries.flatMap((raw, i) => {
    try {
      return [template(obj(raw), taken)]
    } catch (err) {
      if (warnings.length < 50) warnings.push(`template ${i + 1} left out: ${err instanceof Error ? err.message : err}`)
      return []
    }
  })
  return { templates, warnings }
}

function template(t: Record<string, unknown>, taken: Set<string>): Template {
  const title = text(t.title, LIMITS.title)
  if (!title) throw new Error("it has no title")
  const type = Number(t.type ?? 1)
  if (![1, 2, 3].includes(type)) throw new Error(`${title}: type ${JSON.stringify(t.type)} is not 1, 2 or 3`)
  const warnings: string[] = []
  const { variables: vars, environment } = envOf(t.env, warnings)
  const common = {
    id: slug(title, taken),
    title,
    description: text(t.description, LIMITS.description),
    categories: categories(t.categories),
    logo: httpUrl(t.logo) ? { url: httpUrl(t.logo)! } : null,
    note: text(plainText(text(t.note, LIMITS.note * 2, true)), LIMITS.note, true),
    version: null,
    admin_only: t.administrator_only === true || t["administrator-only"] === true,
  }
  if (type === 1) {
    const { compose, ports } = containerCompose(t, title, environment, warnings)
    return { ...common, kind: "container", variables: [...vars, ...ports], compose, warnings }
  }
  const repo = obj(t.repository)
  const url = httpUrl(repo.url)
  const path = text(repo.stackfile, 1024)
  if (!url) throw new Error(`${title}: its repository is not an http(s) URL`)
  if (!path) throw new Error(`${title}: its repository names no stackfile`)
  if (type === 2)
    warnings.push("written for a swarm (docker stack deploy): it installs as a compose stack unless a swarm is chosen")
  return {
    ...common,
    kind: type === 2 ? "swarm" : "compose",
    variables: vars,
    repository: { url, path, ref: "HEAD" },
    warnings,
  }
}

/** `env` entries: variables for those a person fills in, fixed values for presets. */
function envOf(raw: unknown, warnings: string[]): { variables: Variable[]; environment: Record<string, string> } {
  const variables: Variable[] = []
  const environment: Record<string, string> = {}
  for (const e of list(raw, LIMITS.variables)) {
    const entry = obj(e)
    const v = variable({ ...entry, key: entry.name })
    if (!v || environment[v.key] !== undefined || variables.some((x) => x.key === v.key)) continue
    if (entry.preset === true) {
      environment[v.key] = v.default ?? ""
      continue
    }
    environment[v.key] = `\${${v.key}}`
    if (SECRET_KEY.test(v.key) && !v.choices.length) {
      if (v.default) warnings.push(`${v.key}: the list's default value is replaced by one generated at install`)
      variables.push({ ...v, secret: true, generate: true, default: null })
    } else variables.push({ ...v, required: v.default === null ? v.required : true })
  }
  return { variables, environment }
}

/** `$` as compose reads it literally. */
const literal = (s: string) => s.replaceAll("$", () => "$$")

/** A container template's compose file: one service, its published host ports as variables. */
function containerCompose(
  t: Record<string, unknown>,
  title: string,
  environment: Record<string, string>,
  warnings: string[],
): { compose: string; ports: Variable[] } {
  const registry = text(t.registry, 255).replace(/\/+$/, "")
  const image = text(t.image, 255)
  const ref = registry && !image.startsWith(`${registry}/`) ? `${registry}/${image}` : image
  if (!IMAGE.test(ref))
    throw new Error(`${title}: its image ${JSON.stringify(ref.slice(0, 80))} is not an image reference`)
  const name = slug(title, new Set()).slice(0, 40)
  const service: Record<string, unknown> = { image: ref }
  const restart = text(t.restart_policy, 20)
  service.restart = RESTART.has(restart) ? restart : "unless-stopped"
  const command = text(t.command, LIMITS.value)
  if (command) service.command = literal(command)
  const hostname = text(t.hostname, 63)
  if (/^[A-Za-z0-9][A-Za-z0-9.-]*$/.test(hostname)) service.hostname = hostname
  if (t.privileged === true) {
    service.privileged = true
    warnings.push("runs privileged: its container has every capability of the host")
  }
  if (t.interactive === true) Object.assign(service, { stdin_open: true, tty: true })
  const network = text(t.network, 63)
  if (network === "host") {
    service.network_mode = "host"
    warnings.push("uses the host's network: its ports are the host's own")
  } else if (network) warnings.push(`the network ${network} it names is not joined: the stack has a network of its own`)
  if (Object.keys(environment).length)
    service.environment = Object.fromEntries(
      Object.entries(environment).map(([k, v]) => [k, v === `\${${k}}` ? v : literal(v)]),
    )
  const labels = list(t.labels, 64).flatMap((l) => {
    const { name: k, value } = obj(l)
    const key = text(k, 255)
    return /^[A-Za-z0-9][A-Za-z0-9._\/-]*$/.test(key) ? [[key, literal(text(value, LIMITS.value))] as const] : []
  })
  if (labels.length) service.labels = Object.fromEntries(labels)
  const ports: Variable[] = []
  const published: string[] = []
  for (const p of list(t.ports, 64)) {
    const m = PORT.exec(text(p, 32))
    if (!m) {
      warnings.push(`port ${JSON.stringify(text(p, 32))} left out: not host:container/protocol`)
      continue
    }
    const [, host, container, protocol = "tcp"] = m
    if (!host) {
      published.push(`${container}/${protocol}`)
      continue
    }
    const key = `PORT_${container}${protocol === "udp" ? "_UDP" : ""}`
    if (!ports.some((v) => v.key === key))
      ports.push({
        key,
        label: `Host port for ${container}/${protocol}`,
        description: `The port of this host that reaches the container's port ${container}/${protocol}.`,
        type: "port",
        default: host,
        choices: [],
        secret: false,
        generate: false,
        required: true,
      })
    published.push(`\${${key}}:${container}/${protocol}`)
  }
  if (published.length) service.ports = published
  const volumes: Record<string, null> = {}
  const mounts: Record<string, unknown>[] = []
  for (const raw of list(t.volumes, 32)) {
    const v = obj(raw)
    const target = text(v.container, 1024)
    if (!target.startsWith("/") || target.includes(":")) {
      warnings.push(`volume ${JSON.stringify(target.slice(0, 80))} left out: its container path is not absolute`)
      continue
    }
    const bind = text(v.bind, 1024)
    const readOnly = v.readonly === true ? { read_only: true } : {}
    if (bind && KEPT_BINDS.test(bind)) {
      mounts.push({ type: "bind", source: literal(bind), target, ...readOnly })
      continue
    }
    let key =
      target
        .replace(/[^A-Za-z0-9]+/g, "-")
        .replace(/^-+|-+$/g, "")
        .toLowerCase()
        .slice(0, 50) || "data"
    while (Object.hasOwn(volumes, key)) key = `${key}-2`
    volumes[key] = null
    if (bind) warnings.push(`the bind of ${bind} became the named volume ${key}`)
    mounts.push({ type: "volume", source: key, target, ...readOnly })
  }
  if (mounts.length) service.volumes = mounts
  const compose = stringify(
    { services: { [name || "app"]: service }, ...(Object.keys(volumes).length ? { volumes } : {}) },
    { lineWidth: 0 },
  )
  return { compose, ports }
}
