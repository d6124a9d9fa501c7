import { describe, expect, test } from "bun:test"
import { engineError } from "#lib/engine/client.ts"
import { splitDetails } from "#lib/engine/swarm.ts"

describe("splitDetails", () => {
  test("takes the task and node ids off the front of a service's log line", () => {
    expect(
      splitDetails(
        "com.docker.swarm.node.id=n1,com.docker.swarm.service.id=s1,com.docker.swarm.task.id=t1 hello  world",
      ),
    ).toEqual({ task: "t1", node: "n1", line: "hello  world" })
    expect(
      splitDetails("com.docker.swarm.node.id=n1,com.docker.swarm.service.id=s1,com.docker.swarm.task.id=t1"),
    ).toEqual({ task: "t1", node: "n1", line: "" })
  })
  test("a line without the attributes is kept whole", () => {
    expect(splitDetails("plain text=1 here")).toEqual({ task: "", node: "", line: "plain text=1 here" })
  })
})

describe("the swarm's refusals", () => {
  test("not a manager is a conflict not_swarm_manager; a manager leaving or a stale version a conflict", () => {
    expect(
      engineError(
        503,
        'This node is not a swarm manager. Use "docker swarm init" or "docker swarm join" to connect this node to swarm and try again.',
      ),
    ).toMatchObject({ kind: "conflict", code: "not_swarm_manager" })
    expect(engineError(406, "node is not part of a swarm")).toMatchObject({
      kind: "conflict",
      code: "not_swarm_manager",
    })
    expect(
      engineError(503, "You are attempting to leave the swarm on a node that is participating as a manager."),
    ).toMatchObject({ kind: "conflict", code: "conflict" })
    expect(engineError(500, "rpc error: code = Unknown desc = update out of sequence")).toMatchObject({
      kind: "conflict",
      code: "conflict",
    })
    expect(engineError(503, "something else")).toMatchObject({ kind: "upstream", code: "engine_error" })
  })
})
