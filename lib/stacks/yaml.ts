// The one YAML parser of the service, with the same rules everywhere: merge keys (`<<`) as compose
// applies them, no duplicate-key check (the parser's own is quadratic in the number of keys; compose
// refuses duplicate keys itself), aliases limited (an alias bomb is refused, never expanded), and a
// size bound (413 `compose_too_large`). A text that does not parse is a 400 `invalid_compose` with the
// parser's message.
//
// Text from a request is parsed on a worker thread with a deadline (`parseYaml`): within the size
// bound a hostile file still costs the parser seconds (1 MiB of keys, aliases or nested flow
// collections: 0.8 to 160 s), which the event loop must not wait for. The worker is terminated when
// its deadline passes (400 `invalid_compose`) and a new one takes the next text. `parseYamlSync` is
// for text the service has already accepted through `parseYaml` (a stack's stored compose file, read
// on every view of the stack): the values of the last texts the worker parsed are kept for it.
import { FILE_MAX_BYTES } from "./files.ts"
import { invalid, tooLarge } from "../errors/errors.ts"
import { type ThreadFailure, WorkerThread, workerUrl } from "../threads/worker.ts"

/** The YAML library on this thread, loaded by its first use: loaded, it holds about 7 MiB that an idle service need not. */
export const yamlLibrary = (): typeof import("yaml") => require("yaml")

/** `maxAliasCount`: how often an anchor may be used, times the uses inside it (one anchor merged into 99 services passes; a bomb does not). */
export const YAML_OPTIONS = { merge: true, uniqueKeys: false, maxAliasCount: 100 } as const

/** The largest compose file (or file compose reads) taken: as large as the stack's other files. */
export const YAML_MAX_BYTES = FILE_MAX_BYTES
/** How long one text may take to parse. */
export const YAML_DEADLINE_MS = 5000

export interface YamlLimits {
  /** What the text is, for messages ("the compose file", a path). */
  what?: string
  maxBytes?: number
  deadlineMs?: number
  /** The YAML version to read by (1.2 unless told: compose v1 prints YAML 1.1). */
  version?: "1.1" | "1.2"
}

/** A service's `volumes` entry written as a string (`short`) or as a map's `source`, at [start, end) of the text. */
export interface VolumeEntryAt {
  service: string
  short: boolean
  value: string
  start: number
  end: number
}

/** What the worker thread (yaml-worker.ts) is asked, and what it answers. */
export interface YamlRequest {
  id: number
  task: "parse" | "volumes"
  text: string
  version?: YamlLimits["version"]
}

/** Refuses with 413 `compose_too_large` a text over `maxBytes`. */
export function checkYamlSize(
  text: string,
  { what = "the compose file", maxBytes = YAML_MAX_BYTES }: YamlLimits = {},
): void {
  // UTF-8 takes at most 3 bytes per UTF-16 unit: only a text near the bound is measured.
  if (text.length * 3 <= maxBytes) return
  const size = Buffer.byteLength(text)
  if (size > maxBytes) throw tooLarge(`${what} is ${size} bytes; at most ${maxBytes}`, "compose_too_large")
}

/** The parser's options, read by `version`. */
export const yamlOptions = (version?: YamlLimits["version"]) => (version ? { ...YAML_OPTIONS, version } : YAML_OPTIONS)

/**
 * How many top-level keys a compose file (or a file it extends or includes) may have: compose knows a
 * handful, and with `x-` extensions a file needs a few dozen, but compose v2's time is quadratic in
 * their number (64 KiB of them: 0.5 s, 128 KiB: 2.5 s), where keys further down are linear.
 */
export const TOP_KEYS_MAX = 256

/** Refuses with 400 `invalid_compose` a parsed compose file with more than TOP_KEYS_MAX top-level keys. */
export function checkTopKeys(doc: unknown, what = "the compose file"): void {
  const keys = doc && typeof doc === "object" ? Object.keys(doc).length : 0
  if (keys > TOP_KEYS_MAX)
    throw invalid(`${what} has ${keys} top-level keys; at most ${TOP_KEYS_MAX}`, "invalid_compose")
}

const unparsed = (what: string, message: string) => invalid(`${what} does not parse: ${message}`, "invalid_compose")

/** The one thread texts from requests are parsed on (yaml-worker.ts). */
const thread = new WorkerThread<Omit<YamlRequest, "id">, unknown>(workerUrl(import.meta, "lib/stacks/yaml-worker.ts"))

/** The values of the texts last parsed on the worker (YAML 1.2), most recent last. */
const parsed = new Map<string, unknown>()
const PARSED_KEPT = 32

function keep(text: string, value: unknown): void {
  parsed.delete(text)
  parsed.set(text, value)
  if (parsed.size > PARSED_KEPT) parsed.delete(parsed.keys().next().value!)
}

async function onThread(request: Omit<YamlRequest, "id">, limits: YamlLimits): Promise<unknown> {
  checkYamlSize(request.text, limits)
  const { what = "the compose file", deadlineMs = YAML_DEADLINE_MS } = limits
  return thread.run(request, deadlineMs).catch((err: ThreadFailure) => {
    throw unparsed(what, err.reason === "deadline" ? `parsing took longer than ${deadlineMs} ms` : err.message)
  })
}

/**
 * The value of a YAML text from a request, parsed on the worker thread within its deadline (413, 400
 * `invalid_compose`); one of the last texts parsed there is not parsed again (a value to read, not to change).
 */
export async function parseYaml(text: string, limits: YamlLimits = {}): Promise<unknown> {
  checkYamlSize(text, limits)
  if (!limits.version && parsed.has(text)) return parsed.get(text)
  const value = await onThread({ task: "parse", text, version: limits.version }, limits)
  if (!limits.version) keep(text, value)
  return value
}

/** The `volumes` entries of a compose file's services with where each is written, read on the worker thread as `parseYaml` reads. */
export const volumeEntries = (text: string, limits: YamlLimits = {}): Promise<VolumeEntryAt[]> =>
  onThread({ task: "volumes", text }, limits) as Promise<VolumeEntryAt[]>

/**
 * The value of a YAML text the service has already accepted through `parseYaml`: as the worker parsed
 * it when it is one of the last texts it took (a value to read, not to change), else parsed here and
 * now by the same rules.
 */
export function parseYamlSync(text: string, limits: YamlLimits = {}): unknown {
  checkYamlSize(text, limits)
  if (!limits.version && parsed.has(text)) return parsed.get(text)
  try {
    return yamlLibrary().parse(text, yamlOptions(limits.version))
  } catch (err) {
    throw unparsed(limits.what ?? "the compose file", (err as Error).message)
  }
}
