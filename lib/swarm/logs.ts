// A service's log as the service's log lines: `service` is the service's name, `container` the task
// that wrote the line.
import type { Engine } from "../engine/client.ts"
import type { LogLineRecord, LogQuery } from "../engine/logs.ts"

/** Looks the service up first, so that an unknown one fails with 404 before any stream starts. */
export async function serviceLogLines(engine: Engine, id: string, q: LogQuery): Promise<AsyncIterable<LogLineRecord>> {
  const service = await engine.inspectService(id)
  const name = service.Spec.Name
  return (async function* () {
    for await (const l of engine.serviceLogs(service.ID, q))
      yield { service: name, container: l.task, stream: l.stream, ts: l.ts, line: l.line }
  })()
}
