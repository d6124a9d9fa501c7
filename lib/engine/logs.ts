// A container's log as the service's log line objects: which service and container wrote it, on
// which stream, when, and the text. Stack logs merge several of these.
import { SERVICE_LABEL } from "./containers.ts"
import type { Engine } from "./client.ts"
import type { StreamName } from "./frames.ts"

export interface LogLineRecord {
  /** The compose service label, or the container name for a container outside any stack. */
  service: string
  container: string
  stream: StreamName
  /** The engine's RFC 3339 timestamp (nanoseconds). */
  ts: string
  line: string
}

export interface LogQuery {
  follow: boolean
  tail: number | "all"
  signal?: AbortSignal
}

/** Looks the container up first, so that an unknown one fails with 404 before any stream starts. */
export async function containerLogs(engine: Engine, id: string, q: LogQuery): Promise<AsyncIterable<LogLineRecord>> {
  const info = await engine.inspectContainer(id)
  const container = info.Name.replace(/^\//, "")
  const service = info.Config.Labels?.[SERVICE_LABEL] ?? container
  return (async function* () {
    for await (const l of engine.logs(info.Id, q))
      yield { service, container, stream: l.stream, ts: l.ts, line: l.line }
  })()
}
