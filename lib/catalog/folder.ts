// The folder format of our own: one folder per template, holding
//   template.yaml   the manifest: title, description, categories, logo, version, note, variables
//   compose.yaml    the compose file (interpolating `${KEY}` of the variables)
//   logo.svg        optional: the logo, when the manifest's `logo` names this file
//   files/...       optional: the stack's other files, at their paths under files/
// A source of this format is a folder of such folders (or one such folder). The manifest is YAML read
// with the service's parser options (aliases bounded); everything in it goes through template.ts.
import { parse } from "yaml"
import { ORCHESTRATORS } from "../stacks/orchestrator.ts"
import { YAML_OPTIONS } from "../stacks/yaml.ts"
import { FormatError } from "./portainer.ts"
import { categories, httpUrl, LIMITS, obj, slug, TEMPLATE_ID, text, variables, type Template } from "./template.ts"

export const MANIFEST = "template.yaml"
export const COMPOSE = "compose.yaml"
const MANIFESTS = [MANIFEST, "template.yml"]
const COMPOSES = [COMPOSE, "compose.yml", "docker-compose.yml", "docker-compose.yaml"]
const LOGO_TYPES: Record<string, string> = { svg: "image/svg+xml" }

/** The templates of a folder of template folders (relative path → text), with what was left out and why. */
export function fromFolder(files: Record<string, string>): { templates: Template[]; warnings: string[] } {
  const roots = new Set<string>()
  for (const p of Object.keys(files)) {
    const parts = p.split("/")
    if (MANIFESTS.includes(parts.at(-1)!) && parts.length <= 2) roots.add(parts.slice(0, -1).join("/"))
  }
  if (!roots.size) throw new FormatError(`no ${MANIFEST} in the folder or in a folder of it`)
  if (roots.size > LIMITS.templates)
    throw new FormatError(`the folder holds ${roots.size} templates; a source holds at most ${LIMITS.templates}`)
  const taken = new Set<string>()
  const warnings: string[] = []
  const templates = [...roots].sort().flatMap((root) => {
    try {
      const prefix = root ? `${root}/` : ""
      const own = Object.fromEntries(
        Object.entries(files)
          .filter(([p]) => p.startsWith(prefix))
          .map(([p, c]) => [p.slice(prefix.length), c]),
      )
      return [folderTemplate(own, root, taken)]
    } catch (err) {
      if (warnings.length < 50)
        warnings.push(`${root || "the folder"} left out: ${err instanceof Error ? err.message : err}`)
      return []
    }
  })
  return { templates, warnings }
}

/** One template folder (relative path → text); its id is the folder's name where that is an id. */
export function folderTemplate(files: Record<string, string>, name: string, taken: Set<string>): Template {
  const manifestText = MANIFESTS.map((m) => files[m]).find((t) => t !== undefined)!
  let manifest: Record<string, unknown>
  try {
    manifest = obj(parse(manifestText, YAML_OPTIONS))
  } catch (err) {
    throw new Error(`${MANIFEST} does not parse: ${err instanceof Error ? err.message.split("\n")[0] : err}`)
  }
  const compose = COMPOSES.map((c) => files[c]).find((t) => t !== undefined)
  if (compose === undefined) throw new Error(`it has no ${COMPOSE}`)
  const title = text(manifest.title, LIMITS.title)
  if (!title) throw new Error(`${MANIFEST} has no title`)
  const base = name.split("/").at(-1) ?? ""
  const id = TEMPLATE_ID.test(base) && !taken.has(base) ? (taken.add(base), base) : slug(title, taken)
  const stackFiles = Object.fromEntries(
    Object.entries(files)
      .filter(([p]) => p.startsWith("files/"))
      .map(([p, c]) => [p.slice("files/".length), c]),
  )
  const logoName = text(manifest.logo, LIMITS.url)
  const logoType = LOGO_TYPES[logoName.split(".").at(-1)?.toLowerCase() ?? ""]
  const logoFile = !logoName.includes("/") && logoType ? files[logoName] : undefined
  const logo =
    logoFile !== undefined && logoFile.length <= LIMITS.logoBytes
      ? { type: logoType!, data: logoFile }
      : httpUrl(logoName)
        ? { url: httpUrl(logoName)! }
        : null
  const kind = ORCHESTRATORS.find((name) => name === manifest.kind) ?? "compose"
  return {
    id,
    title,
    description: text(manifest.description, LIMITS.description),
    categories: categories(manifest.categories),
    logo,
    note: text(manifest.note, LIMITS.note, true),
    kind,
    version: text(manifest.version, 64) || null,
    variables: variables(manifest.variables),
    compose,
    ...(Object.keys(stackFiles).length ? { files: stackFiles } : {}),
    admin_only: manifest.admin_only === true,
    warnings: [],
  }
}
