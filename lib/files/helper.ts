// A volume's files through the engine, when its folder is not this host's (an engine over tcp, a VM,
// the service not root) or its driver is not the plain local one (NFS options, a plugin): each
// operation gets a helper container of the transfer image that mounts only that volume at /v
// (read-only unless the operation writes), with no network and a read-only root of its own, and is
// removed afterwards (a killed service's helpers are swept at start, lib/volumes/transfer.ts).
//
// Nothing of the host is in the helper's reach, and its own root cannot be written: a link, raced in
// or not, can lead a write nowhere but into the volume. A script (busybox sh, its paths passed as
// octal escapes, paths.ts) first enters the folder an operation works in and checks that it lies on
// the volume's own device: a folder swapped for a link out of the volume is refused there, and what
// follows works relative to the folder entered, which no rename can move away. A file's bytes and a
// folder's tar are what cat and tar print there (names of any bytes pass, which the archive API of
// Docker 20.10 does not): a link is archived as a link, a file is refused when it is one, and one
// swapped in the instant between the check and cat's open can at worst lead the read into the
// helper's read-only root (the transfer image's own files), never to the host or another volume.
import { randomBytes } from "node:crypto"
import type { Engine } from "../engine/client.ts"
import { demux } from "../engine/frames.ts"
import { DETACH_KEYS } from "../engine/shell.ts"
import { conflict, invalid, notFound, upstream } from "../errors/errors.ts"
import { ensureImage, TRANSFER_LABEL } from "../volumes/transfer.ts"
import { tarGuard } from "../volumes/tar-scan.ts"
import { changed, type Files, type Kind, notRoot, paged, type RawEntry } from "./files.ts"
import { type FilePath, joinPath, octal, shownPath } from "./paths.ts"
import { spooled } from "./spool.ts"
import { fileHeader, fileTar } from "./tar.ts"
import { checkUpload } from "./upload.ts"

/** The shell functions every script starts with: `d` decodes an argument into $v, `pin` enters a folder of the volume. */
const PRELUDE = [
  `d() { v=$(printf '%bx' "$1"); v=\${v%x}; }`,
  `pin() { d "$1"; cd "/v/$v" 2>/dev/null || exit 3; [ "$(stat -c %d .)" = "$(stat -c %d /v)" ] || exit 4; }`,
  "",
].join("\n")

/** The scripts' exit codes and what they mean. */
const EXIT = { absent: 3, outside: 4, changed: 5, notFile: 6, exists: 7 }

interface Ran {
  code: number
  out: Buffer
  err: string
}

type Arg = FilePath | string

/** Runs `script` in the helper `id`, its path arguments escaped; what it printed and its exit code. */
async function run(engine: Engine, id: string, script: string, args: Arg[]): Promise<Ran> {
  const cmd = ["sh", "-c", PRELUDE + script, "sh", ...args.map((a) => (typeof a === "string" ? a : octal(joinPath(a))))]
  const exec = await engine.exec(id, { cmd, tty: false, detachKeys: DETACH_KEYS })
  const out: Uint8Array[] = []
  let err = ""
  try {
    for await (const chunk of demux(exec.output))
      if (chunk.stream === "stdout") out.push(chunk.data)
      else err += new TextDecoder().decode(chunk.data)
  } finally {
    exec.close()
  }
  const { ExitCode } = await engine.execInspect(exec.id)
  return { code: ExitCode ?? -1, out: Buffer.concat(out), err }
}

/** A script's failure in the API's words. */
function failed(ran: Ran, path: FilePath, what: string): unknown {
  if (ran.code === EXIT.absent) return notFound(`${shownPath(path)} does not exist`, "file_not_found")
  if (ran.code === EXIT.outside)
    return invalid(
      `${shownPath(path)} leads out of the volume through a link: links are never followed out`,
      "link_in_path",
    )
  if (ran.code === EXIT.changed) return changed(path)
  if (ran.code === EXIT.notFile) return invalid(`${shownPath(path)} is not a regular file`, "not_a_file")
  if (ran.code === EXIT.exists) return conflict(`${shownPath(path)} exists already`, "file_exists")
  return upstream(
    `${what} ${shownPath(path)} failed in the helper container: ${ran.err.trim().slice(-300)}`,
    "files_failed",
  )
}

async function check(ran: Promise<Ran>, path: FilePath, what: string): Promise<Ran> {
  const r = await ran
  if (r.code !== 0) throw failed(r, path, what)
  return r
}

const S_IFMT = 0o170000
const KINDS: Record<number, Kind> = { 0o100000: "file", 0o040000: "folder", 0o120000: "link" }

/** Parses the listing script's records (see `list`): "S<hex mode> <size> <uid> <gid> <mtime> ./<name>\n" and "L./<name>", "T<target>". */
export function parseListing(out: Buffer, nonce: string): RawEntry[] {
  const mark = Buffer.from(nonce)
  const pieces: Buffer[] = []
  for (let at = out.indexOf(mark); at >= 0; ) {
    const next = out.indexOf(mark, at + mark.length)
    pieces.push(out.subarray(at + mark.length, next < 0 ? out.length : next))
    at = next
  }
  const entries = new Map<string, RawEntry>()
  for (let i = 0; i < pieces.length; i++) {
    const p = pieces[i]!
    if (p[0] === 0x53) {
      // "S<hex> <size> <uid> <gid> <mtime> ./<name>\n": five fields, then the name up to the record's last newline.
      let at = 1
      const fields: string[] = []
      for (let f = 0; f < 5; f++) {
        const space = p.indexOf(0x20, at)
        fields.push(p.subarray(at, space).toString("latin1"))
        at = space + 1
      }
      const name = p.subarray(at + 2, p.at(-1) === 0x0a ? -1 : p.length).toString("latin1")
      const mode = Number.parseInt(fields[0]!, 16)
      entries.set(name, {
        name,
        kind: KINDS[mode & S_IFMT] ?? "other",
        mode,
        size: Number(fields[1]),
        uid: Number(fields[2]),
        gid: Number(fields[3]),
        mtime: Number(fields[4]),
      })
    } else if (p[0] === 0x4c && pieces[i + 1]?.[0] === 0x54) {
      const e = entries.get(p.subarray(3).toString("latin1"))
      if (e) e.target = pieces[i + 1]!.subarray(1).toString("latin1")
      i++
    }
  }
  return [...entries.values()]
}

/** The files of the volume `volume` through helper containers of `image`; `spool` is a folder of the data directory for uploads. */
export function helperFiles(engine: Engine, image: string, volume: string, spool: string): Files {
  /** Runs `fn` with a helper container started, removed afterwards unless `keep` takes it over. */
  async function helper<T>(writes: boolean, fn: (id: string) => Promise<T>): Promise<T> {
    await ensureImage(engine, image)
    const { Id } = await engine.createContainer({
      Image: image,
      Cmd: ["sleep", "86400"],
      Labels: { [TRANSFER_LABEL]: "1" },
      NetworkDisabled: true,
      HostConfig: {
        NetworkMode: "none",
        ReadonlyRootfs: true,
        Mounts: [{ Type: "volume", Source: volume, Target: "/v", ReadOnly: !writes, VolumeOptions: { NoCopy: true } }],
      },
    })
    const discard = () => engine.removeContainer(Id, { force: true }).catch(() => {})
    try {
      await engine.containerAction(Id, "start")
      return await fn(Id)
    } finally {
      await discard()
    }
  }

  /** Puts `tar` into a new folder at the volume's root (ASCII name) and answers its name. */
  async function stage(id: string, tar: ReadableStream<Uint8Array>): Promise<string> {
    const name = `.hm-${randomBytes(8).toString("hex")}`
    await check(run(engine, id, 'mkdir -m 700 "/v/$1"', [name]), [], "staging in")
    await engine.putArchive(id, `/v/${name}`, tar).catch(async (err) => {
      await run(engine, id, 'rm -rf -- "/v/$1"', [name])
      throw err
    })
    return name
  }

  /** The file at `path` replaced by `size` bytes of `body`, staged beside it in the volume and moved over it. */
  async function replace(
    path: FilePath,
    body: ReadableStream<Uint8Array> | Uint8Array,
    size: number,
    version: string | undefined,
  ): Promise<void> {
    const script = [
      'pin "$1"; d "$2"; t=$3; f=./$v',
      '[ -L "$f" ] || { [ -e "$f" ] && [ ! -f "$f" ]; } && exit 6',
      `[ -n "$4" ] && { [ -f "$f" ] || exit 5; [ "$(sha256sum < "$f" | cut -c1-64)" = "$4" ] || exit 5; }`,
      'if [ -e "$f" ]; then o=$(stat -c %u:%g "$f"); m=$(stat -c %a "$f"); else o=$(stat -c %u:%g .); m=644; fi',
      'chown "$o" "$t" && chmod "$m" "$t" && mv -f -- "$t" "$f"',
    ].join("\n")
    await helper(true, async (id) => {
      const staged = await stage(id, fileTar(fileHeader("f", size), size, body))
      try {
        await check(
          run(engine, id, script, [path.slice(0, -1), path.slice(-1), `/v/${staged}/f`, version ?? ""]),
          path,
          "writing",
        )
      } finally {
        await run(engine, id, 'rm -rf -- "/v/$1"', [staged])
      }
    })
  }

  return {
    async list(folder, page) {
      const nonce = randomBytes(16).toString("hex")
      const script = [
        'pin "$1"; n=$2',
        'find . -mindepth 1 -maxdepth 1 -exec stat -c "${n}S%f %s %u %g %Y %n" {} + || exit 1',
        `find . -mindepth 1 -maxdepth 1 -type l -exec sh -c 'n=$1; shift; for l; do t=$(readlink -- "$l"; echo x); printf "%sL%s%sT%s" "$n" "$l" "$n" "\${t%?x}"; done' sh "$n" {} +`,
      ].join("\n")
      const ran = await helper(false, (id) => check(run(engine, id, script, [folder, nonce]), folder, "listing"))
      return paged(parseListing(ran.out, nonce), page)
    },

    async read(path) {
      notRoot(path, "read as a file")
      // The size first, told apart from the script's own failures by the exit code; then the bytes.
      const script = [
        'pin "$1"; d "$2"; f=./$v',
        '{ [ -e "$f" ] || [ -L "$f" ]; } || exit 3',
        '{ [ -L "$f" ] || [ ! -f "$f" ]; } && exit 6',
        'stat -c %s "$f" >&2 && exec cat -- "$f"',
      ].join("\n")
      const { body, stderr } = await output(script, [path.slice(0, -1), path.slice(-1)], path)
      return { body, size: Number(await stderr), mtime: 0 }
    },

    async archive(path) {
      const script = path.length
        ? 'pin "$1"; d "$2"; { [ -e "./$v" ] || [ -L "./$v" ]; } || exit 3; exec tar -c -f - -- "./$v"'
        : 'pin ""; exec tar -c -f - .'
      return (await output(script, [path.slice(0, -1), path.slice(-1)], path)).body
    },

    async write(path, body, size, version) {
      notRoot(path, "replaced")
      if (body instanceof Uint8Array) return replace(path, body, body.length, version)
      if (size !== undefined) return replace(path, body, size, version)
      // Without its length, the body is received whole first: a tar's header says the size before the bytes.
      return spooled(spool, body, (file) => replace(path, file.stream(), file.size, version))
    },

    async unpack(folder, tar) {
      const guard = tarGuard(tar, checkUpload)
      // Unpacked into a folder of its own, then its entries moved into place: all or nothing.
      const script = [
        'pin "$1"; s=/v/$2',
        'for e in "$s"/* "$s"/.[!.]* "$s"/..?*; do { [ -e "$e" ] || [ -L "$e" ]; } || continue; b=${e##*/}; { [ -e "./$b" ] || [ -L "./$b" ]; } && exit 7; done',
        'for e in "$s"/* "$s"/.[!.]* "$s"/..?*; do { [ -e "$e" ] || [ -L "$e" ]; } || continue; mv -- "$e" . || exit 1; done',
      ].join("\n")
      await helper(true, async (id) => {
        const staged = await stage(id, guard.stream).catch((err) => {
          throw guard.error ?? err
        })
        try {
          await check(run(engine, id, script, [folder, staged]), folder, "unpacking into")
        } finally {
          await run(engine, id, 'rm -rf -- "/v/$1"', [staged])
        }
      })
    },

    async mkdir(path) {
      notRoot(path, "made")
      const script =
        'pin "$1"; d "$2"; { [ -e "./$v" ] || [ -L "./$v" ]; } && exit 7; mkdir -- "./$v" && chown "$(stat -c %u:%g .)" "./$v"'
      await helper(true, (id) => check(run(engine, id, script, [path.slice(0, -1), path.slice(-1)]), path, "making"))
    },

    async rename(from, to) {
      notRoot(from, "renamed")
      notRoot(to, "replaced")
      // The target's folder is entered too (its device checked), then named from the source's by its path from /v.
      const script = [
        'pin "$3"; d "$4"; { [ -e "./$v" ] || [ -L "./$v" ]; } && exit 7; b=$(pwd)/$v',
        'pin "$1"; d "$2"; { [ -e "./$v" ] || [ -L "./$v" ]; } || exit 3',
        'exec mv -- "./$v" "$b"',
      ].join("\n")
      await helper(true, (id) =>
        check(
          run(engine, id, script, [from.slice(0, -1), from.slice(-1), to.slice(0, -1), to.slice(-1)]),
          from,
          "renaming",
        ),
      )
    },

    async remove(path) {
      notRoot(path, "removed")
      const script = 'pin "$1"; d "$2"; { [ -e "./$v" ] || [ -L "./$v" ]; } || exit 3; exec rm -rf -- "./$v"'
      await helper(true, (id) => check(run(engine, id, script, [path.slice(0, -1), path.slice(-1)]), path, "removing"))
    },
  }

  /**
   * What `script` writes on stdout, streamed from a helper that lives until the stream ends or is
   * cancelled; the script's failure before its first byte is thrown, a later one fails the stream.
   * `stderr` is what it wrote there once its first byte came (or it ended).
   */
  async function output(
    script: string,
    args: Arg[],
    path: FilePath,
  ): Promise<{ body: ReadableStream<Uint8Array>; stderr: Promise<string> }> {
    let done!: () => void
    const released = new Promise<void>((resolve) => (done = resolve))
    let handed!: (value: { body: ReadableStream<Uint8Array>; stderr: Promise<string> }) => void
    let refused!: (err: unknown) => void
    const ready = new Promise<{ body: ReadableStream<Uint8Array>; stderr: Promise<string> }>(
      (resolve, reject) => ((handed = resolve), (refused = reject)),
    )
    void helper(false, async (id) => {
      const cmd = [
        "sh",
        "-c",
        PRELUDE + script,
        "sh",
        ...args.map((a) => (typeof a === "string" ? a : octal(joinPath(a)))),
      ]
      const exec = await engine.exec(id, { cmd, tty: false, detachKeys: DETACH_KEYS })
      const chunks = demux(exec.output)
      let err = ""
      let first: Uint8Array | undefined
      // Up to the first byte of stdout (or the end): a failure then is the caller's error.
      for (;;) {
        const next = await chunks.next()
        if (next.done) break
        if (next.value.stream === "stderr") err += new TextDecoder().decode(next.value.data)
        else if (next.value.data.length) {
          first = next.value.data
          break
        }
      }
      const exitCode = async () => (await engine.execInspect(exec.id)).ExitCode ?? -1
      if (!first) {
        exec.close()
        const code = await exitCode()
        if (code !== 0) return refused(failed({ code, out: Buffer.alloc(0), err }, path, "reading"))
      }
      const body = new ReadableStream<Uint8Array>(
        {
          async pull(controller) {
            if (first) {
              controller.enqueue(first)
              first = undefined
              return
            }
            try {
              for (;;) {
                const next = await chunks.next()
                if (next.done) break
                if (next.value.stream === "stdout") return controller.enqueue(next.value.data)
              }
              const code = await exitCode()
              if (code !== 0) controller.error(failed({ code, out: Buffer.alloc(0), err }, path, "reading"))
              else controller.close()
            } catch (error) {
              controller.error(error)
            }
            exec.close()
            done()
          },
          cancel() {
            exec.close()
            done()
          },
        },
        { highWaterMark: 0 },
      )
      handed({ body, stderr: Promise.resolve(err.trim()) })
      await released
    }).catch(refused)
    return ready
  }
}
