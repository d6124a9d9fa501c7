// Local users in <data>/auth/users.json: name, role, the stacks they are limited to, the argon2id
// hash of their password.
import { join } from "node:path"
import { conflict, invalid, notFound } from "../errors/errors.ts"
import { isUserName } from "./identity.ts"
import { JsonFile } from "./json-file.ts"
import { MAX_PASSWORD, MIN_PASSWORD } from "./passwords.ts"
import type { Role } from "./roles.ts"

export interface UserRecord {
  role: Role
  stacks?: string[]
  hash: string
  created: string
}

/** A user as the API shows one: never the hash. */
export interface UserView {
  name: string
  role: Role
  stacks?: string[]
  created: string
}

export const view = (name: string, u: UserRecord): UserView => ({
  name,
  role: u.role,
  ...(u.stacks && { stacks: u.stacks }),
  created: u.created,
})

export function checkPassword(password: string): void {
  if (password.length < MIN_PASSWORD)
    throw invalid(`a password has at least ${MIN_PASSWORD} characters`, "weak_password")
  if (password.length > MAX_PASSWORD)
    throw invalid(`a password has at most ${MAX_PASSWORD} characters`, "invalid_password")
}

export function checkName(name: string): void {
  if (!isUserName(name))
    throw invalid("a user name has 1 to 64 letters, digits and ._@+- and starts with a letter or digit", "invalid_user")
}

/** The last admin stays: without one, nobody could manage users until the next start's setup token. */
function keepAnAdmin(all: Record<string, UserRecord>): void {
  if (!Object.values(all).some((u) => u.role === "admin"))
    throw conflict("this would leave no admin; make another admin first", "last_admin")
}

export class Users {
  private file: JsonFile<Record<string, UserRecord>>

  constructor(dir: string) {
    this.file = new JsonFile(join(dir, "users.json"), () => ({}))
  }

  get(name: string): UserRecord | undefined {
    const all = this.file.read()
    return Object.hasOwn(all, name) ? all[name] : undefined
  }

  list(): UserView[] {
    return Object.entries(this.file.read())
      .map(([name, u]) => view(name, u))
      .sort((a, b) => a.name.localeCompare(b.name))
  }

  hasAdmin(): boolean {
    return Object.values(this.file.read()).some((u) => u.role === "admin")
  }

  /** Adds a user; 409 when the name is taken. */
  add(name: string, user: UserRecord): void {
    checkName(name)
    this.file.update((all) => {
      if (Object.hasOwn(all, name)) throw conflict(`user "${name}" exists`, "user_exists")
      all[name] = user
    })
  }

  /** Changes a user's role, stacks or hash; 404 when there is none, 409 when it would leave no admin. */
  change(name: string, change: Partial<Pick<UserRecord, "role" | "hash">> & { stacks?: string[] | null }): UserView {
    return this.file.update((all) => {
      const user = Object.hasOwn(all, name) ? all[name] : undefined
      if (!user) throw notFound(`no user "${name}"`, "user_not_found")
      const { stacks, ...rest } = change
      Object.assign(user, rest)
      if (stacks === null) delete user.stacks
      else if (stacks) user.stacks = stacks
      keepAnAdmin(all)
      return view(name, user)
    })
  }

  /** Removes a user; 404 when there is none, 409 for the last admin. */
  remove(name: string): void {
    this.file.update((all) => {
      if (!Object.hasOwn(all, name)) throw notFound(`no user "${name}"`, "user_not_found")
      delete all[name]
      keepAnAdmin(all)
    })
  }
}
