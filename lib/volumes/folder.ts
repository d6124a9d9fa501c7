// A volume's own folder (its Mountpoint), read and written by restic itself when the engine keeps its
// volumes on this host: no tar stream from a transfer container through this process, so a backup or
// a restore goes as fast as restic does on a folder.
//
// "On this host" is proved, never guessed: a wrong guess would back up an empty or unrelated folder of
// this machine and call it the volume. A tcp engine is another machine (or a VM, as Docker Desktop's)
// whose paths mean nothing here, and a unix socket may lead into a VM too; so once per process and
// engine a volume of a random name is created, its Mountpoint must then exist here as a folder (a
// random name cannot have been there before), and the confinement below must work on it. Anything
// else, or not being root, keeps the stream path (lib/volumes). A volume of another driver, or of the
// local driver with options (an NFS or a device mount the engine makes in its own mount namespace
// when a container uses it), is never read here either.
//
// The folder is the ground of the stack's containers, which write it while restic reads it: they may
// swap a file for a symlink to /etc/shadow between restic's lstat and its open, or leave a symlink
// for a restore to write through. restic therefore runs in a private mount namespace where the folder
// is bind-mounted onto itself with `nosymfollow` (and read-only for a backup): a symlink is still read
// and recorded as a link, but no path through that mount follows one (an open gives ELOOP).
import { randomBytes } from "node:crypto"
import { lstatSync } from "node:fs"
import type { Engine, Volume } from "../engine/client.ts"
import { spawnBounded } from "../engine/spawn.ts"
import { TRANSFER_LABEL } from "./transfer.ts"

/**
 * The command that runs `cmd` inside `dir`, confined as the module's comment says. The path goes to
 * the script as an argument, never into its text; `exec` makes the program the process that a
 * deadline or a departed caller stops.
 */
export function confined(dir: string, write: boolean, cmd: string[]): string[] {
  const script =
    'd=$1 o=$2; shift 2; mount --bind "$d" "$d" && mount -o "remount,bind,${o}nosymfollow" "$d" && cd "$d" && exec "$@"'
  return ["unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh", dir, write ? "" : "ro,", ...cmd]
}

const isFolder = (path: string) => {
  try {
    return lstatSync(path).isDirectory()
  } catch {
    return false
  }
}

/** What proving an engine local takes: its calls and the check that the confinement works, replaceable in tests. */
export interface Probe {
  isRoot(): boolean
  isFolder(path: string): boolean
  /** Whether `confined(dir, false, ["true"])` runs and exits 0. */
  confines(dir: string): Promise<boolean>
}

const hostProbe: Probe = {
  isRoot: () => process.getuid?.() === 0,
  isFolder,
  async confines(dir) {
    const run = spawnBounded(
      confined(dir, false, ["true"]),
      { stdin: "ignore", stdout: "ignore", stderr: "ignore" },
      { timeout: 30 },
    )
    return (await run.exited) === 0
  },
}

/**
 * Whether the engine's volume folders are this host's folders, restic confinable in them (see the
 * module's comment). An engine that fails to make the probe's volume gives no answer: it throws.
 */
export async function provesLocal(engine: Engine, probe: Probe = hostProbe): Promise<boolean> {
  if (!engine.host.startsWith("unix://") || !probe.isRoot()) return false
  const name = `harbormaster-probe-${randomBytes(12).toString("hex")}`
  const { Mountpoint } = await engine.createVolume(name, { [TRANSFER_LABEL]: "1" })
  try {
    return !!Mountpoint && probe.isFolder(Mountpoint) && (await probe.confines(Mountpoint))
  } finally {
    await engine.removeVolume(name, { force: true }).catch(() => {})
  }
}

const proved = new Map<string, Promise<boolean>>()

/** `provesLocal`, once per process and engine; an engine that gave no answer (down) is the stream's this time and asked again next time. */
export function isLocal(engine: Engine): Promise<boolean> {
  let answer = proved.get(engine.host)
  if (!answer) {
    answer = provesLocal(engine).catch(() => {
      proved.delete(engine.host)
      return false
    })
    proved.set(engine.host, answer)
  }
  return answer
}

/** The folder restic may read or write for this volume, or null when its data goes as a tar stream. */
export async function volumeFolder(engine: Engine, volume: Volume | string): Promise<string | null> {
  if (!(await isLocal(engine))) return null
  const v = typeof volume === "string" ? await engine.inspectVolume(volume) : volume
  const plain = v.Driver === "local" && !Object.keys(v.Options ?? {}).length
  return plain && v.Mountpoint && isFolder(v.Mountpoint) ? v.Mountpoint : null
}
