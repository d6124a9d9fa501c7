// A grant (a role and the stacks it is limited to) and the one property the front door keeps of
// tokens: whatever an owner's role and stacks were when a token was made and however they change
// afterwards, the token lets its bearer do no more than its owner may do now, nor more than it was
// made for. Checked through the real Auth (its files, its identify) over random histories.
import { afterAll, describe, expect, test } from "bun:test"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import fc from "fast-check"
import { Auth } from "#lib/auth/auth.ts"
import { ROLES, type Role, type RouteRole } from "#lib/auth/roles.ts"
import { createsStacks, narrower, reaches, within, type Grant } from "#lib/auth/scope.ts"
import { tokenGrant } from "#lib/auth/tokens.ts"
import { loadConfig } from "#lib/service/config.ts"

const STACKS = ["a", "b", "c", "d"]
const role = fc.constantFrom<Role>(...ROLES)
const someStacks = fc.subarray(STACKS, { minLength: 1 })
/** A user's grant: a role, and stacks or none (all). */
const userGrant = fc.record({ role, stacks: fc.option(someStacks, { nil: undefined }) }, { requiredKeys: ["role"] })
const need = fc.constantFrom<RouteRole>("viewer", "operator", "admin")
const stack = fc.option(fc.constantFrom(...STACKS, "z"), { nil: undefined })

describe("grants", () => {
  test("narrower is what both allow; within says whether one allows nothing more", () => {
    expect(narrower({ role: "admin", stacks: ["a", "b"] }, { role: "operator" })).toEqual({
      role: "operator",
      stacks: ["a", "b"],
    })
    expect(narrower({ role: "viewer", stacks: ["a"] }, { role: "admin", stacks: ["b"] })).toEqual({
      role: "viewer",
      stacks: [],
    })
    expect(within({ role: "viewer", stacks: ["a"] }, { role: "operator" })).toBe(true)
    expect(within({ role: "viewer" }, { role: "operator", stacks: ["a"] })).toBe(false)
    expect(within({ role: "admin", stacks: ["a"] }, { role: "operator", stacks: ["a", "b"] })).toBe(false)
  })

  test("a grant limited to stacks acts on those only and elsewhere reads; it creates no stack", () => {
    const g: Grant = { role: "operator", stacks: ["a"] }
    expect([reaches(g, "operator", "a"), reaches(g, "operator", "b"), reaches(g, "viewer", "b")]).toEqual([
      true,
      false,
      false,
    ])
    expect([reaches(g, "viewer"), reaches(g, "operator"), reaches(g, "public")]).toEqual([true, false, true])
    expect([createsStacks(g), createsStacks({ role: "operator" }), createsStacks(null)]).toEqual([false, true, true])
  })

  test("within and narrower agree with reaches for every route a grant may call", () => {
    fc.assert(
      fc.property(userGrant, userGrant, need, stack, (a, b, n, s) => {
        const both = narrower(a, b)
        expect(reaches(both, n, s)).toBe(reaches(a, n, s) && reaches(b, n, s))
        if (within(a, b)) expect(!reaches(a, n, s) || reaches(b, n, s)).toBe(true)
      }),
      { numRuns: 2000 },
    )
  })
})

describe("a token is never more than its owner", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "hm-scope-"))
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }))
  const config = loadConfig({ SVC_DATA: dataDir, SVC_AUTH: "local" }).auth
  const auth = new Auth({ config, dataDir, now: Date.now })
  // An admin who stays, so that any of the users below may stop being one.
  auth.users.add("root", { role: "admin", hash: "-", created: "" })
  let n = 0
  const bearing = (token: string) => new Request("http://127.0.0.1/", { headers: { authorization: `Bearer ${token}` } })
  const asUser = (g: Grant) => ({ role: g.role, stacks: g.stacks ? [...g.stacks] : null })

  test("made wider than its owner it is refused; however the owner's role and stacks change, it allows no more than they do now, nor more than it was made for", async () => {
    await fc.assert(
      fc.asyncProperty(
        userGrant,
        fc.record({ role: fc.option(role, { nil: undefined }), stacks: fc.option(someStacks, { nil: undefined }) }),
        fc.array(userGrant, { maxLength: 6 }),
        fc.array(fc.tuple(need, stack), { minLength: 4, maxLength: 4 }),
        async (owner, asked, history, routes) => {
          const user = `u${n++}`
          auth.users.add(user, {
            ...(owner.stacks && { stacks: [...owner.stacks] }),
            role: owner.role,
            hash: "-",
            created: "",
          })
          const wanted: Grant = {
            role: asked.role ?? owner.role,
            ...((asked.stacks ?? owner.stacks) && { stacks: asked.stacks ?? owner.stacks }),
          }
          let grant: Grant
          try {
            grant = tokenGrant(owner, asked)
          } catch {
            expect(within(wanted, owner)).toBe(false)
            return
          }
          expect(within(grant, owner)).toBe(true)
          const { token } = await auth.tokens.create({
            name: "p",
            user,
            source: "local",
            ...grant,
            stacks: grant.stacks && [...grant.stacks],
            mcp_confirm: true,
          })
          for (const now of [owner, ...history]) {
            auth.users.change(user, asUser(now))
            const identity = await auth.identify(bearing(token))
            expect(identity).not.toBeNull()
            expect(within(identity!, now)).toBe(true)
            expect(within(identity!, grant)).toBe(true)
            for (const [n_, s] of routes)
              if (reaches(identity!, n_, s)) expect(reaches(now, n_, s) && reaches(grant, n_, s)).toBe(true)
          }
          auth.users.remove(user)
          expect(await auth.identify(bearing(token))).toBeNull()
        },
      ),
      { numRuns: 150 },
    )
  }, 60_000)
})
