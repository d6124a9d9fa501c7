// Work on hostile or large text done on a worker thread of its own (parse-worker.ts), within a
// deadline past which the thread is stopped: a source's list or folder read into templates, a stack's
// compose file rewritten for a template. Each is rare (a refresh, a save), so each gets a fresh thread
// that ends with it.
import { invalid } from "../errors/errors.ts"
import type { Template } from "./template.ts"

export type Parsed = { templates: Template[]; warnings: string[] }
export type Unsecreted = { compose: string; keys: string[] }
export type ParseRequest =
  | { format: "portainer"; text: string }
  | { format: "folder"; files: Record<string, string> }
  | { format: "unsecret"; compose: string; patterns: string[] }
export type ParseReply = { value: Parsed | Unsecreted } | { error: string }

/** The worker module; a compiled binary keeps it under its own root (scripts/build.ts lists it). */
const WORKER = import.meta.url.startsWith("file:///$bunfs/")
  ? new URL("lib/catalog/parse-worker.ts", import.meta.url)
  : new URL("./parse-worker.ts", import.meta.url)

function onWorker(request: ParseRequest, deadlineMs: number, code: string): Promise<unknown> {
  const worker = new Worker(WORKER)
  return new Promise((resolve, reject) => {
    const end = (settle: () => void) => {
      clearTimeout(timer)
      worker.terminate()
      settle()
    }
    const timer = setTimeout(
      () => end(() => reject(invalid(`reading it took longer than ${deadlineMs} ms`, code))),
      deadlineMs,
    )
    worker.onmessage = ({ data }: MessageEvent<ParseReply>) =>
      end(() => ("error" in data ? reject(invalid(data.error, code)) : resolve(data.value)))
    worker.onerror = (e) => end(() => reject(invalid(e.message || "reading it failed", code)))
    worker.postMessage(request)
  })
}

/** The templates of a source's content; 400 `invalid_source` for content that is no list of templates. */
export const parseSource = (
  request: Exclude<ParseRequest, { format: "unsecret" }>,
  deadlineMs = 20_000,
): Promise<Parsed> => onWorker(request, deadlineMs, "invalid_source") as Promise<Parsed>

/** A compose file with its literal secret values made `${KEY}` (lib/catalog/save.ts). */
export const unsecretCompose = (compose: string, patterns: string[], deadlineMs = 10_000): Promise<Unsecreted> =>
  onWorker({ format: "unsecret", compose, patterns }, deadlineMs, "invalid_compose") as Promise<Unsecreted>
