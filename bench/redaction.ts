// bench/redaction: what hiding a stack's secrets costs an engine event. A healthcheck's exec_create
// event of a stack's container (compose's labels, the command holding a secret) is mapped as the bus
// maps it, with the store's redactor for a stack holding two single-line secrets and a 28-line PEM
// key, against the same event mapped with no redactor, in the same run. Prints microseconds per
// event and the ratio (target: under 3). Run: bun bench/redaction.ts
import { fromEngine } from "#lib/engine/events.ts"
import { redactorFor } from "#lib/stacks/env.ts"

const ROUNDS = 5
const EVENTS = 200_000

const pem = [
  "-----BEGIN PRIVATE KEY-----",
  ...Array.from({ length: 26 }, () => btoa(crypto.randomUUID()).slice(0, 64)),
  "-----END PRIVATE KEY-----",
].join("\n")
const secrets = ["hunter2-very-secret", "another-token-123", pem]
const redactor = redactorFor({ secrets: (name) => (name === "shop" ? secrets : []) })
const event = {
  Type: "container",
  Action: "exec_create: /bin/sh -c redis-cli -a hunter2-very-secret ping",
  Actor: {
    ID: "c".repeat(64),
    Attributes: {
      "com.docker.compose.project": "shop",
      "com.docker.compose.service": "db",
      "com.docker.compose.config-hash": "a".repeat(64),
      "com.docker.compose.container-number": "1",
      "com.docker.compose.oneoff": "False",
      "com.docker.compose.project.working_dir": "/var/lib/harbormaster/stacks/shop",
      "com.docker.compose.version": "2.26.1",
      image: "redis:7",
      name: "shop-db-1",
      execID: "b".repeat(64),
    },
  },
  time: 0,
  timeNano: 0,
}

/** Microseconds per event of `map`. */
function perEvent(map: () => unknown): number {
  const t0 = performance.now()
  for (let i = 0; i < EVENTS; i++) map()
  return ((performance.now() - t0) / EVENTS) * 1000
}

if (fromEngine(event, redactor).action !== "exec_create: /bin/sh -c redis-cli -a *** ping")
  throw new Error("the secret was not hidden")
for (let round = 1; round <= ROUNDS; round++) {
  const plain = perEvent(() => fromEngine(event))
  const hidden = perEvent(() => fromEngine(event, redactor))
  console.log(
    `round ${round}: plain ${plain.toFixed(2)} us, redacted ${hidden.toFixed(2)} us per event, ratio ${(hidden / plain).toFixed(2)}`,
  )
}
