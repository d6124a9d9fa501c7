// The registry's refusal in a failed run's output, in the words compose v1 (1.29), compose v2 (2.26)
// and the docker CLI printed against Docker 20.10 and 26 with a registry refusing them.
import { expect, test } from "bun:test"
import { registryError, registryFailureIn } from "#lib/engine/registry-errors.ts"

const LAN = "10.216.9.1:5443/hm/app:v1"

test("compose v1's and v2's words for missing and wrong credentials name the registry", () => {
  const v1 = `Creating network "t9_default" with the default driver
Pulling app (10.216.9.1:5443/hm/app:v1)...
Head "https://10.216.9.1:5443/v2/hm/app/manifests/v1": no basic auth credentials`
  expect(registryFailureIn(v1, [LAN])).toMatchObject({
    kind: "upstream",
    code: "registry_unauthorized",
    message: expect.stringMatching(/^registry 10\.216\.9\.1:5443 refused the credentials .*no basic auth credentials$/),
  })
  const v1wrong =
    "Pulling app ... error\n\nERROR: for app  unauthorized: authentication required\nunauthorized: authentication required"
  expect(registryFailureIn(v1wrong, [LAN, "busybox"])).toBeUndefined()
  expect(registryFailureIn(v1wrong, [LAN])).toMatchObject({ code: "registry_unauthorized" })
  const v2 = ` app Pulling 
 app Error failed to resolve reference "10.216.9.1:5443/hm/app:v1": pull access denied, repository does not exist or may require authorization: authorization failed: no basic auth credentials
Error response from daemon: failed to resolve reference "10.216.9.1:5443/hm/app:v1": pull access denied, repository does not exist or may require authorization: authorization failed: no basic auth credentials`
  expect(registryFailureIn(v2, ["busybox", LAN])).toMatchObject({ code: "registry_unauthorized" })
})

test("a registry down, a tag it lacks, a pull limit, an untrusted certificate", () => {
  const down =
    'ERROR: for app  Get "https://10.216.9.1:5449/v2/": dial tcp 10.216.9.1:5449: connect: connection refused'
  expect(registryFailureIn(down, ["10.216.9.1:5449/hm/app:v1"])).toMatchObject({
    code: "registry_unreachable",
    message: expect.stringMatching(/^registry 10\.216\.9\.1:5449 is unreachable/),
  })
  const missing =
    'Error response from daemon: failed to resolve reference "10.216.9.1:5444/other:v1": 10.216.9.1:5444/other:v1: not found'
  expect(registryFailureIn(missing, ["10.216.9.1:5444/other:v1"])).toMatchObject({
    kind: "not_found",
    code: "image_not_found",
  })
  // A line that names neither the image nor its registry says too little to blame it.
  expect(registryFailureIn("network web_default not found", ["10.216.9.1:5444/other:v1"])).toBeUndefined()
  const hub = "ERROR: for web  toomanyrequests: You have reached your pull rate limit."
  expect(registryFailureIn(hub, ["nginx:1.25"])).toMatchObject({
    kind: "rate_limited",
    code: "registry_rate_limited",
    message: expect.stringMatching(/^registry docker\.io refused: too many requests/),
  })
  expect(registryError("r.lan", "x509: certificate signed by unknown authority")).toMatchObject({
    code: "registry_tls",
  })
  expect(registryError("r.lan", "the container exited with 1")).toBeUndefined()
  expect(registryFailureIn("", [LAN])).toBeUndefined()
})
