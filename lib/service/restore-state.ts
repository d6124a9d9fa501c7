// `harbormaster restore-state`: the service's state restored from a restic repository into a new,
// empty data directory (lib/backups/state.ts), on a new machine, before the service's first start
// there. The repository and its password come from the command line and restic's own environment
// variables, since the list of repositories is part of what is restored.
import { existsSync, readFileSync } from "node:fs"
import { restoreState } from "../backups/state.ts"

export const RESTORE_STATE_USAGE = `usage: restore-state --repository REPO [--password-file FILE] [--snapshot ID] [--target DIR]
  REPO: restic's repository string (a local path, sftp:, rest:, rclone:); its password from
  --password-file or RESTIC_PASSWORD; the newest state backup unless --snapshot names one; into
  --target, default SVC_DATA, which must be empty or missing. Start the service there with the
  secret key the state was sealed with (SVC_SECRET_KEY, the credential, or its key file).`

/** Seconds the restore may take. */
const TIMEOUT = 3600

/** Runs the command; its exit status. */
export async function restoreStateCommand(
  args: string[],
  env: Record<string, string | undefined>,
  dataDir: string,
  out: (line: string) => void,
): Promise<number> {
  const opts = new Map<string, string>()
  for (let i = 0; i < args.length; i += 2) {
    const [flag, value] = [args[i]!, args[i + 1]]
    if (!["--repository", "--password-file", "--snapshot", "--target"].includes(flag) || value === undefined) {
      out(RESTORE_STATE_USAGE)
      return 2
    }
    opts.set(flag, value)
  }
  const repository = opts.get("--repository") ?? env.RESTIC_REPOSITORY
  const file = opts.get("--password-file") ?? env.RESTIC_PASSWORD_FILE
  const password = file && existsSync(file) ? readFileSync(file, "utf8").trimEnd() : env.RESTIC_PASSWORD
  if (!repository || !password) {
    out(RESTORE_STATE_USAGE)
    return 2
  }
  const target = opts.get("--target") ?? dataDir
  try {
    const found = await restoreState(
      { name: "restore-state", repository, password },
      target,
      { timeout: TIMEOUT },
      opts.get("--snapshot"),
    )
    out(
      `restored the state backup ${found.snapshot.slice(0, 8)} of ${found.time} (server ${found.server ?? "?"}, taken from ${found.path}) into ${target}`,
    )
    return 0
  } catch (err) {
    out(`restore-state: ${err instanceof Error ? err.message : String(err)}`)
    return 1
  }
}
