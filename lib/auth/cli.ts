// `server user add|passwd|role|stacks|reset-factors|del|list`: local users from the command line (the
// first admin, a reset), on the data directory the service uses. A password is read from standard
// input. A new password or a removal ends the user's sessions and tokens (a removal, their second
// factors too); `reset-factors` removes their second factors and ends their sessions (the one admin
// who lost their phone); a role or stacks changed, their sessions
// and tokens follow at once (a token is never more than its owner). The running service sees each
// change at its next request, and within a second ends what the user holds open that no longer may be.
import { join } from "node:path"
import { DomainError, invalid, notFound } from "../errors/errors.ts"
import { Factors } from "./factors.ts"
import { Passwords } from "./passwords.ts"
import { isRole } from "./roles.ts"
import { Sessions } from "./sessions.ts"
import { Tokens } from "./tokens.ts"
import { checkPassword, Users } from "./users.ts"

export const USAGE = `usage: user add NAME --role viewer|operator|admin [--stacks a,b]   (password on stdin)
       user passwd NAME                                            (password on stdin)
       user role NAME viewer|operator|admin
       user stacks NAME a,b                                        ("" for all)
       user reset-factors NAME                                     (its authenticator app and recovery codes)
       user del NAME
       user list`

export interface CliIo {
  /** Standard input, whole. */
  stdin(): Promise<string>
  out(line: string): void
}

const usage = (message = USAGE) => invalid(message, "usage")

function flag(args: string[], name: string): string | undefined {
  const i = args.indexOf(name)
  return i >= 0 ? args[i + 1] : undefined
}

const stackList = (text: string | undefined) => text?.split(",").filter(Boolean)

/** Runs one command; returns the exit status. */
export async function userCommand(
  args: string[],
  dataDir: string,
  io: CliIo,
  passwords = new Passwords(),
): Promise<number> {
  const dir = join(dataDir, "auth")
  const users = new Users(dir)
  const forget = (name: string) => {
    new Sessions(dir, { idle: 0, max: 0 }, Date.now).endAll(name)
    new Tokens(dir, Date.now).revokeAll(name)
  }
  const password = async () => {
    const text = (await io.stdin()).replace(/\r?\n$/, "")
    checkPassword(text)
    return passwords.hash(text)
  }
  const [command, name] = args
  try {
    if (command === "list") {
      for (const u of users.list()) io.out(`${u.name}\t${u.role}${u.stacks ? `\t${u.stacks.join(",")}` : ""}`)
      return 0
    }
    if (!name) throw usage()
    if (command === "add") {
      const role = flag(args, "--role")
      if (!isRole(role)) throw usage("--role must be viewer, operator or admin")
      const stacks = stackList(flag(args, "--stacks"))
      users.add(name, {
        role,
        ...(stacks?.length && { stacks }),
        hash: await password(),
        created: new Date().toISOString(),
      })
      io.out(`user ${name} added (${role})`)
    } else if (command === "passwd") {
      users.change(name, { hash: await password() })
      forget(name)
      io.out(`password of ${name} changed; their sessions and tokens ended`)
    } else if (command === "role") {
      const role = args[2]
      if (!isRole(role)) throw usage("the role must be viewer, operator or admin")
      users.change(name, { role })
      io.out(`${name} is ${role}; their sessions and tokens follow`)
    } else if (command === "stacks") {
      if (args[2] === undefined) throw usage()
      const stacks = stackList(args[2])
      users.change(name, { stacks: stacks?.length ? stacks : null })
      io.out(
        `${name} is limited to ${stacks?.length ? `the stacks ${stacks.join(", ")}` : "no stacks"}; their sessions and tokens follow`,
      )
    } else if (command === "reset-factors") {
      if (!users.get(name)) throw notFound(`no user "${name}"`, "user_not_found")
      new Factors(dataDir).reset(name)
      new Sessions(dir, { idle: 0, max: 0 }, Date.now).endAll(name)
      io.out(`second factors of ${name} removed; their sessions ended`)
    } else if (command === "del") {
      users.remove(name)
      forget(name)
      new Factors(dataDir).reset(name)
      io.out(`user ${name} removed; their sessions, tokens and second factors ended`)
    } else throw usage()
    return 0
  } catch (err) {
    if (!(err instanceof DomainError)) throw err
    io.out(err.message)
    return err.code === "usage" ? 2 : 1
  }
}
