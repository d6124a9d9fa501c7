import { expect, test } from "bun:test"
import type { ContainerSummary } from "#lib/engine/client.ts"
import { byProject, stackStatus } from "#lib/stacks/view.ts"

const c = (id: string, state: string, project?: string) =>
  ({
    Id: id,
    State: state,
    Labels: project ? { "com.docker.compose.project": project } : {},
  }) as unknown as ContainerSummary

test("containers are grouped by compose project, containers of no project left out", () => {
  const grouped = byProject([
    c("a", "running", "web"),
    c("b", "exited"),
    c("c", "paused", "web"),
    c("d", "running", "db"),
  ])
  expect([...grouped.keys()]).toEqual(["web", "db"])
  expect(grouped.get("web")!.map((x) => x.Id)).toEqual(["a", "c"])
})

test("a stack's status follows its containers' states", () => {
  expect(stackStatus([c("a", "running"), c("b", "running")])).toBe("running")
  expect(stackStatus([c("a", "paused")])).toBe("paused")
  expect(stackStatus([c("a", "exited"), c("b", "created")])).toBe("stopped")
  expect(stackStatus([])).toBe("stopped")
  expect(stackStatus([c("a", "running"), c("b", "exited")])).toBe("partly running")
})
