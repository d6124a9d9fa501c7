import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import assert from "node:assert"
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { EventBus } from "#lib/engine/events.ts"
import { engineError } from "#lib/engine/client.ts"
import { hostPaths, LiveMounts, parseMountinfo, type MountLine } from "#lib/stacks/live-mounts.ts"
import { allowedIn } from "#lib/stacks/host-paths.ts"
import { FakeEngine } from "../../support/fake-engine.ts"

const ID = "f0dc3e555fdbf51a689b589fc1eb97bd2e09e84495f71144bf257abb88f976dc"

// This machine's own mountinfo (the host side) and a container's, as a Docker 20.10 engine started it
// with binds of a folder, a subfolder and a file whose paths hold a space.
const HOST = `22 27 0:21 / /proc rw,relatime - proc proc rw
24 27 0:6 / /dev rw,relatime - devtmpfs devtmpfs rw,size=12334460k,nr_inodes=3083615,mode=755
25 24 0:23 / /dev/shm rw,relatime - tmpfs tmpfs rw,size=24684084k
27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard,resv_strict,resuid=65534,resgid=65534
28 27 0:25 / /mnt/sandboxing/model_tools_env/v1/python ro,nosuid,nodev,relatime - tmpfs model_tools_unavailable ro,size=4k,mode=755
`
const CONTAINER = `101 74 0:39 / / rw,relatime master:4 - overlay overlay rw,lowerdir=/tmp/hm-dprobe.zjYr/a/root/overlay2/l/DETWK3E2HYLCXYRLJEH566PTJE,upperdir=/tmp/hm-dprobe.zjYr/a/root/overlay2/dd49/diff,workdir=/tmp/hm-dprobe.zjYr/a/root/overlay2/dd49/work
102 101 0:42 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw
107 106 0:29 /hmdprobe/${ID} /sys/fs/cgroup/cpu ro,nosuid,nodev,noexec,relatime - cgroup cgroup rw,cpu
118 101 254:0 /tmp/hm\\040dprobe/data/sub /sub rw,relatime - ext4 /dev/vda rw,discard,resv_strict,resuid=65534,resgid=65534
119 101 254:0 /tmp/hm\\040dprobe/data /data rw,relatime - ext4 /dev/vda rw,discard,resv_strict,resuid=65534,resgid=65534
120 101 254:0 /tmp/hm-dprobe.zjYr/a/root/containers/${ID}/resolv.conf /etc/resolv.conf rw,relatime - ext4 /dev/vda rw,discard,resv_strict,resuid=65534,resgid=65534
123 101 254:0 /tmp/hm\\040dprobe/file.txt /run/secrets/token rw,relatime - ext4 /dev/vda rw,discard,resv_strict,resuid=65534,resgid=65534
80 102 0:43 /null /proc/keys rw,nosuid - tmpfs tmpfs rw,size=65536k,mode=755
`
const line = (dev: string, root: string, point: string): MountLine => ({ dev, root, point })

describe("parseMountinfo", () => {
  test("reads each line's filesystem, root and mount point, the octal escapes decoded", () => {
    const lines = parseMountinfo(CONTAINER)
    expect(lines).toHaveLength(8)
    expect(lines[0]).toEqual(line("0:39", "/", "/"))
    expect(lines.filter((l) => l.dev === "254:0").map((l) => [l.root, l.point])).toEqual([
      ["/tmp/hm dprobe/data/sub", "/sub"],
      ["/tmp/hm dprobe/data", "/data"],
      [`/tmp/hm-dprobe.zjYr/a/root/containers/${ID}/resolv.conf`, "/etc/resolv.conf"],
      ["/tmp/hm dprobe/file.txt", "/run/secrets/token"],
    ])
    expect(parseMountinfo(HOST).map((l) => l.point)).toEqual([
      "/proc",
      "/dev",
      "/dev/shm",
      "/",
      "/mnt/sandboxing/model_tools_env/v1/python",
    ])
  })

  test("a source deleted since loses the kernel's //deleted; tabs, newlines and backslashes are escapes too; junk lines are skipped", () => {
    const text =
      "118 101 254:0 /tmp/hm\\040dprobe/data/sub//deleted /sub rw - ext4 /dev/vda rw\n1 2 0:5 /a\\011b\\012c\\134d /x\\040y rw - tmpfs t rw\n\nnot a line\n"
    expect(parseMountinfo(text)).toEqual([
      line("254:0", "/tmp/hm dprobe/data/sub", "/sub"),
      line("0:5", "/a\tb\nc\\d", "/x y"),
    ])
  })
})

describe("hostPaths", () => {
  const host = parseMountinfo(HOST)

  test("a bind of a folder, of a subfolder and of a file lie under the host's mount of their filesystem", () => {
    expect(
      parseMountinfo(CONTAINER)
        .filter((l) => l.dev === "254:0")
        .map((l) => hostPaths(l, host)),
    ).toEqual([
      ["/tmp/hm dprobe/data/sub"],
      ["/tmp/hm dprobe/data"],
      [`/tmp/hm-dprobe.zjYr/a/root/containers/${ID}/resolv.conf`],
      ["/tmp/hm dprobe/file.txt"],
    ])
  })

  test("a folder of a filesystem mounted elsewhere: its mount point plus the path under the mount's root", () => {
    const srv = [...host, line("8:16", "/", "/srv/data"), line("0:50", "/volumes/app", "/var/app")]
    expect(hostPaths(line("8:16", "/stacks/web/data", "/data"), srv)).toEqual(["/srv/data/stacks/web/data"])
    expect(hostPaths(line("8:16", "/", "/data"), srv)).toEqual(["/srv/data"])
    expect(hostPaths(line("0:50", "/volumes/app/x", "/x"), srv)).toEqual(["/var/app/x"])
    // a part of the filesystem that no host mount shows
    expect(hostPaths(line("0:50", "/volumes/other", "/x"), srv)).toEqual([])
    expect(hostPaths(line("9:9", "/x", "/x"), srv)).toEqual([])
  })

  test("one filesystem mounted twice (btrfs subvolumes, a bind of a folder as a root): every place, the deepest root first", () => {
    const btrfs = [line("0:30", "/@", "/"), line("0:30", "/@home", "/home"), line("0:30", "/@", "/mnt/root")]
    expect(hostPaths(line("0:30", "/@home/u/app", "/app"), btrfs)).toEqual(["/home/u/app"])
    expect(hostPaths(line("0:30", "/@/srv/x", "/x"), btrfs)).toEqual(["/srv/x", "/mnt/root/srv/x"])
    // a service inside a chroot sees its root as a folder of the filesystem
    expect(hostPaths(line("254:0", "/srv/root/tmp/x", "/x"), [line("254:0", "/srv/root", "/")])).toEqual(["/tmp/x"])
  })

  test("a path under a mount that another covers is not where the object is", () => {
    const covered = [...host, line("0:60", "/", "/tmp")]
    expect(hostPaths(line("254:0", "/tmp/secret", "/x"), covered)).toEqual([])
    const onTop = [...host, line("8:1", "/", "/srv"), line("8:2", "/", "/srv")]
    expect(hostPaths(line("8:1", "/a", "/a"), onTop)).toEqual([])
    expect(hostPaths(line("8:2", "/a", "/a"), onTop)).toEqual(["/srv/a"])
  })
})

describe("LiveMounts", () => {
  let dir: string
  let proc: string
  let engine: FakeEngine
  let events: EventBus
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "hm-live-"))
    proc = join(dir, "proc")
    mkdirSync(join(proc, "self"), { recursive: true })
    mkdirSync(join(dir, "stack/data"), { recursive: true })
    mkdirSync(join(dir, "host"))
    engine = new FakeEngine()
    events = new EventBus()
  })
  afterEach(() => rmSync(dir, { recursive: true, force: true }))

  const stack = () => join(dir, "stack")
  /** Knows the stack "web"; a name that is no stack name is refused as the store refuses it. */
  const guard = (managed = ["web"]) =>
    new LiveMounts({
      engine,
      events,
      managed: (s) => (s.length > 20 ? assert.fail(`invalid stack name ${s}`) : managed.includes(s)),
      allowedFor: () => allowedIn(stack(), []),
      secrets: () => ["s3cret"],
      proc,
    })
  /** A fake /proc: the service's mounts (one filesystem at /) and a container init's, with its cgroup. */
  const kernel = (pid: number, id: string, mounts: [root: string, point: string][]) => {
    writeFileSync(join(proc, "self/mountinfo"), "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n")
    mkdirSync(join(proc, String(pid)), { recursive: true })
    writeFileSync(
      join(proc, `${pid}/mountinfo`),
      mounts
        .map(
          ([root, point], i) => `${200 + i} 101 254:0 ${root.replace(/ /g, "\\040")} ${point} rw - ext4 /dev/vda rw\n`,
        )
        .join(""),
    )
    writeFileSync(join(proc, `${pid}/cgroup`), `0::/hmtest/${id}\n`)
  }
  const container = (service: string, mounts: { source: string; destination: string }[], pid?: number) =>
    engine.addContainer({
      name: `web-${service}-1`,
      pid,
      labels: { "com.docker.compose.project": "web", "com.docker.compose.service": service },
      hostConfig: { RestartPolicy: { Name: "always" } },
      mounts: mounts.map((m) => ({ Type: "bind", Source: m.source, Destination: m.destination, RW: true })),
    })

  test("what the kernel mounted decides, not where the name leads now: a bind that reached a host folder is taken down", async () => {
    const ok = container("a", [{ source: join(stack(), "data"), destination: "/data" }], 41)
    kernel(41, ok.id, [[join(stack(), "data"), "/data"]])
    // The link b's bind followed at its start is gone: its name leads into the stack's folder again.
    const b = container("b", [{ source: join(stack(), "data/x"), destination: "/mnt" }], 42)
    kernel(42, b.id, [[join(dir, "host"), "/mnt"]])
    const escapes = await guard().check("web", allowedIn(stack(), []))
    expect(escapes).toEqual([
      { stack: "web", id: b.id, container: "web-b-1", service: "b", destination: "/mnt", path: join(dir, "host") },
    ])
    expect(engine.containers.get(ok.id)!.state).toBe("running")
    expect(engine.containers.get(b.id)).toMatchObject({
      state: "exited",
      hostConfig: { RestartPolicy: { Name: "no" } },
    })
    // killed at once, then no restart policy starts it again with the engine
    expect(engine.calls.filter((c) => c.args[0] === b.id).map((c) => c.op)).toEqual([
      "inspectContainer",
      "killContainer",
      "updateContainer",
    ])
    expect(events.history()).toEqual([
      expect.objectContaining({
        source: "service",
        type: "stack",
        action: "mount_refused",
        name: "web",
        id: b.id,
        level: "error",
        message: `service b: its bind at /mnt reached ${join(dir, "host")}, outside what the stack may reach; container web-b-1 was stopped`,
      }),
    ])
  })

  test("a stopped container is answered with what it was taken down for until it is gone; a start checked good forgets it", async () => {
    const b = container("b", [{ source: join(stack(), "data/x"), destination: "/mnt" }], 42)
    kernel(42, b.id, [[join(dir, "host"), "/mnt"]])
    const live = guard()
    expect(await live.check("web", allowedIn(stack(), []))).toHaveLength(1)
    expect(await live.check("web", allowedIn(stack(), []))).toEqual([
      expect.objectContaining({ id: b.id, path: join(dir, "host") }),
    ])
    engine.containers.get(b.id)!.state = "running"
    kernel(42, b.id, [[join(stack(), "data/x"), "/mnt"]])
    expect(await live.check("web", allowedIn(stack(), []))).toEqual([])
    expect(events.history()).toHaveLength(1)
  })

  test("a container that refuses the policy change (--rm) is killed all the same; a kill the engine fails is said so", async () => {
    const b = container("b", [{ source: "/etc", destination: "/x" }])
    engine.updateContainer = async () => {
      throw engineError(400, "Restart policy cannot be updated because AutoRemove is enabled for the container")
    }
    await guard().check("web", allowedIn(stack(), []))
    expect(engine.containers.get(b.id)!.state).toBe("exited")
    const c = container("c", [{ source: "/etc", destination: "/x" }])
    engine.killContainer = async () => {
      throw engineError(500, "cannot kill")
    }
    await guard().check("web", allowedIn(stack(), []))
    expect(engine.containers.get(c.id)!.state).toBe("running")
    expect(events.history().map((e) => e.message)).toEqual([
      "service b: its bind at /x reached /etc, outside what the stack may reach; container web-b-1 was stopped (its restart policy could not be changed: Restart policy cannot be updated because AutoRemove is enabled for the container)",
      "service c: its bind at /x reached /etc, outside what the stack may reach; stopping container web-c-1 failed: cannot kill",
    ])
  })

  test("without the container's own mounts (its pid gone or another's, /proc unreadable) the source's links on disk now decide", async () => {
    symlinkSync(join(dir, "host"), join(stack(), "data/x"))
    const noPid = container("b", [{ source: join(stack(), "data/x"), destination: "/mnt" }])
    const reused = container("c", [{ source: join(stack(), "data/x"), destination: "/mnt" }], 43)
    kernel(43, "another-container", [[join(stack(), "data/x"), "/mnt"]])
    const fine = container("d", [{ source: join(stack(), "data"), destination: "/data" }], 44)
    const escapes = await guard().check("web", allowedIn(stack(), []))
    expect(escapes.map((e) => [e.id, e.path])).toEqual([
      [noPid.id, join(dir, "host")],
      [reused.id, join(dir, "host")],
    ])
    expect(engine.containers.get(fine.id)!.state).toBe("running")
  })

  test("a filesystem mounted nowhere the service sees is refused, named by its device", async () => {
    const b = container("b", [{ source: join(stack(), "data"), destination: "/data" }], 45)
    kernel(45, b.id, [])
    writeFileSync(join(proc, "45/mountinfo"), "300 101 0:77 /secret /data rw - tmpfs t rw\n")
    expect((await guard().check("web", allowedIn(stack(), []))).map((e) => e.path)).toEqual([
      "/secret on filesystem 0:77, mounted nowhere the service sees",
    ])
  })

  test("the watcher checks every start of a managed stack's container, checks those running when it begins (past a project the store refuses), and hides the stack's secrets", async () => {
    const follow = new AbortController()
    void events.follow(engine, follow.signal)
    engine.addContainer({
      name: "long-1",
      labels: { "com.docker.compose.project": "a-compose-project-named-at-length" },
      mounts: [{ Type: "bind", Source: "/etc", Destination: "/x" }],
    })
    const running = container("a", [{ source: "/etc", destination: "/etc-of-host" }])
    const live = guard()
    void live.run(follow.signal)
    while (!events.history().some((e) => e.action === "mount_refused")) await Bun.sleep(1)
    expect(engine.containers.get(running.id)!.state).toBe("exited")

    const other = engine.addContainer({
      name: "other-b-1",
      labels: { "com.docker.compose.project": "other" },
      mounts: [{ Type: "bind", Source: "/etc", Destination: "/x" }],
    })
    const b = container("s3cret", [{ source: "/etc", destination: "/x" }])
    engine.emit("container", "start", other.id, { name: other.name, ...other.labels })
    engine.emit("container", "start", b.id, { name: b.name, ...b.labels })
    while (events.history().filter((e) => e.action === "mount_refused").length < 2) await Bun.sleep(1)
    follow.abort()
    expect(engine.containers.get(other.id)!.state).toBe("running")
    expect(engine.containers.get(b.id)!.state).toBe("exited")
    expect(
      events
        .history()
        .filter((e) => e.action === "mount_refused")
        .map((e) => e.message),
    ).toEqual([
      "service a: its bind at /etc-of-host reached /etc, outside what the stack may reach; container web-a-1 was stopped",
      "service ***: its bind at /x reached /etc, outside what the stack may reach; container web-***-1 was stopped",
    ])
  })
})
