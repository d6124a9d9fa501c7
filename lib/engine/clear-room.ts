// What a program must read in the clear (compose's run file and env file, which carry a stack's
// secrets; a candidate laid out for `compose config`) exists only while it runs, where no container
// can read it. Each run gets a room: a tmpfs of its own, mounted in a private mount namespace
// (`unshare -m`) over the clear root, an empty folder under the data directory, and filled from a tar
// on the program's standard input before the program starts; it is gone when the program exits (or
// is killed), never touches a disk, and is seen by no other process (dockerd's binds included).
// Where the service cannot make a mount namespace (it does not run as root), the room is a folder
// of its own under the clear root (0700, in the data directory, which no stack's bind may reach),
// removed when the program exits; what a killed service left there is removed at its next start.
import { chmodSync, lstatSync, mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import type { Subprocess } from "bun"
import { pack } from "tar-stream"
import { spawnBounded, type Bounded, type Deadline } from "./spawn.ts"

/** One entry of a room: a file with its content, or a link to a path outside the room (a stack's data). */
export interface ClearEntry {
  /** Relative to the room. */
  path: string
  content?: string
  link?: string
}

/** A program whose standard output and error are read by the caller. */
export type Piped = Subprocess<Uint8Array, "pipe", "pipe">

/** Seconds the probe for mount namespaces may take. */
const PROBE_TIMEOUT = 10

export class ClearRooms {
  private namespaces: Promise<boolean> | undefined
  private made = false

  /** `root`: the clear root (made 0700 when missing); `privateMounts`: false never uses mount namespaces. */
  constructor(
    readonly root: string,
    private readonly privateMounts = true,
  ) {}

  /** A new room's folder: where its entries lie while its program runs. */
  room(): string {
    return join(this.root, `room-${process.pid}-${crypto.randomUUID()}`)
  }

  /** Whether rooms are tmpfs mounts of their own (the service may make mount namespaces), probed once. */
  isPrivate(): Promise<boolean> {
    this.namespaces ??= this.probe()
    return this.namespaces
  }

  /**
   * Runs `cmd` (spawnBounded's deadline and signal) with `entries` laid out in `room` and `cwd` as its
   * working folder (inside the room or not), its output piped. Its standard input is empty.
   */
  async spawn(
    room: string,
    entries: ClearEntry[],
    cmd: string[],
    cwd: string,
    env: Record<string, string>,
    deadline: Deadline,
  ): Promise<Bounded<Piped>> {
    this.makeRoot()
    if (await this.isPrivate()) {
      const tar = await archive(room.slice(this.root.length + 1), entries)
      const size = Math.max(16 * 1024 * 1024, tar.length * 4)
      const script = `set -e; r=$1 c=$2; shift 2; mount -t tmpfs -o mode=0700,nosuid,nodev,size=${size} harbormaster-clear "$r"; tar -x -f - -C "$r" --no-same-owner; cd "$c"; exec "$@" </dev/null`
      return spawnBounded(
        ["unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh", this.root, cwd, ...cmd],
        { cwd: this.root, env, stdin: tar, stdout: "pipe", stderr: "pipe" },
        deadline,
      )
    }
    layOut(room, entries)
    let run: Bounded<Piped>
    try {
      run = spawnBounded(cmd, { cwd, env, stdin: new Uint8Array(0), stdout: "pipe", stderr: "pipe" }, deadline)
    } catch (err) {
      rmSync(room, { recursive: true, force: true })
      throw err
    }
    return { ...run, exited: run.exited.finally(() => rmSync(room, { recursive: true, force: true })) }
  }

  /** Makes the clear root (0700) once, removing the folder rooms a killed process left in it. */
  private makeRoot(): void {
    if (this.made) return
    const st = lstatSync(this.root, { throwIfNoEntry: false })
    if (st && !st.isDirectory()) rmSync(this.root, { force: true })
    mkdirSync(this.root, { recursive: true, mode: 0o700 })
    chmodSync(this.root, 0o700)
    for (const name of readdirSync(this.root)) {
      const pid = Number(/^room-(\d+)-/.exec(name)?.[1])
      if (pid && pid !== process.pid && !alive(pid)) rmSync(join(this.root, name), { recursive: true, force: true })
    }
    this.made = true
  }

  private async probe(): Promise<boolean> {
    if (!this.privateMounts || process.getuid?.() !== 0) return false
    this.makeRoot()
    try {
      const { exited } = spawnBounded(
        ["unshare", "-m", "--propagation", "private", "mount", "-t", "tmpfs", "-o", "size=64k", "probe", this.root],
        { stdin: "ignore", stdout: "ignore", stderr: "ignore" },
        { timeout: PROBE_TIMEOUT },
      )
      return (await exited) === 0
    } catch {
      return false
    }
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** The entries under `top` (the room's name) as a tar. */
async function archive(top: string, entries: ClearEntry[]): Promise<Uint8Array> {
  const p = pack()
  p.entry({ name: top, type: "directory", mode: 0o700 })
  const folders = new Set<string>()
  for (const e of entries) {
    for (let d = dirname(e.path); d !== "." && !folders.has(d); d = dirname(d)) folders.add(d)
  }
  for (const d of [...folders].sort()) p.entry({ name: `${top}/${d}`, type: "directory", mode: 0o700 })
  for (const e of entries)
    if (e.link !== undefined) p.entry({ name: `${top}/${e.path}`, type: "symlink", linkname: e.link })
    else p.entry({ name: `${top}/${e.path}`, mode: 0o600 }, e.content ?? "")
  p.finalize()
  const chunks: Buffer[] = []
  for await (const chunk of p) chunks.push(chunk as Buffer)
  return new Uint8Array(Buffer.concat(chunks))
}

/** The entries written into the folder `room` (0700, files 0600). */
function layOut(room: string, entries: ClearEntry[]): void {
  mkdirSync(room, { mode: 0o700 })
  try {
    for (const e of entries) {
      const path = join(room, e.path)
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
      if (e.link !== undefined) symlinkSync(e.link, path)
      else writeFileSync(path, e.content ?? "", { mode: 0o600, flag: "wx" })
    }
  } catch (err) {
    rmSync(room, { recursive: true, force: true })
    throw err
  }
}
