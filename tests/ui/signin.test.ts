// Signing in through the browser: headless Chromium against the real service with SVC_AUTH=local,oidc
// and a real identity provider on loopback (oidc-provider's development login pages). After single
// sign-on the header shows the user and role; a viewer is offered no deploy, shell, prune or audit;
// an admin reads the audit log; a token is shown once and works until revoked; sign-out goes through
// the provider's end-session page and back to the sign-in page. With sign-in off the UI shows none of it.
// The pages only sign-in shows (the sign-in page, tokens, the audit log, the header with the user) at
// 1280 and 390 px with nothing reaching out of the viewport, axe-core finding no serious or critical
// violation in light and dark; their screenshots go to docs/screenshots/{light,dark,phone}/ with
// UPDATE_SCREENSHOTS=1 (else to a temporary folder, printed).
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test"
import type { Page } from "playwright-core"
import { cleanup, engineHost, realEngine, runContainer } from "../support/engine.ts"
import { startProvider, type IdentityProvider } from "../support/oidc.ts"
import { freePort, startService, type Service } from "../support/service.ts"
import { openBrowser, show, type Browser } from "../support/browser.ts"
import { overflow, shotsPrinted, snap, violations } from "../support/page-checks.ts"

let provider: IdentityProvider
let svc: Service
let browser: Browser
let page: Page
let container: string
const engine = () => realEngine()

beforeAll(async () => {
  const port = await freePort()
  provider = await startProvider({
    accounts: { ada: ["hm-admins"], vic: ["hm-viewers"] },
    redirectUris: [`http://127.0.0.1:${port}/api/auth/oidc/callback`],
    postLogoutRedirectUris: [`http://127.0.0.1:${port}/`],
  })
  svc = await startService(
    {
      DOCKER_HOST: engineHost(),
      SVC_AUTH: "local,oidc",
      SVC_AUTH_OIDC_ISSUER: provider.issuer,
      SVC_AUTH_OIDC_CLIENT_ID: provider.clientId,
      SVC_AUTH_OIDC_CLIENT_SECRET: provider.clientSecret,
      SVC_AUTH_OIDC_SCOPES: "openid profile groups",
      SVC_AUTH_ROLE_MAP: "hm-admins=admin,hm-viewers=viewer",
    },
    { port },
  )
  container = await runContainer(engine(), `uisignin${process.pid}`, "sleep 600")
  browser = await openBrowser()
  page = browser.page
}, 120_000)

// Each test starts signed out everywhere, here and at the provider.
beforeEach(() => browser.context.clearCookies())

afterEach(() => {
  expect(browser.pageErrors.splice(0)).toEqual([])
})

afterAll(async () => {
  await browser?.close()
  await cleanup(engine())
  await svc?.stop()
  await provider?.stop()
  shotsPrinted()
})

/** Signs `account` in: the service's sign-in page, SSO, the provider's login and consent pages, back. */
async function signInWithSso(account: string): Promise<void> {
  await page.goto(svc.url)
  await page.getByRole("heading", { name: "Sign in" }).waitFor()
  await page.getByRole("link", { name: "Sign in with SSO" }).click()
  await page.locator('input[name="login"]').fill(account)
  await page.locator('input[name="password"]').fill("any password")
  await page.locator('button[type="submit"]').click()
  // The consent page: the service's client asks for the account's profile and groups.
  await page.locator('button[type="submit"]').click()
  await page.waitForURL(`${svc.url}/`)
  await page.locator("#user .user").waitFor()
}

async function signOut(): Promise<void> {
  await page.getByRole("button", { name: "Sign out" }).click()
  // The provider's end-session page asks to confirm, then sends the browser back to the service.
  await page.waitForURL((url) => url.href.startsWith(`${provider.issuer}/session/end`))
  await page.locator('button[autofocus], button[type="submit"]').first().click()
  await page.waitForURL((url) => url.href.startsWith(svc.url))
  await page.getByRole("heading", { name: "Sign in" }).waitFor()
}

const visible = (selector: string) => page.locator(selector).first().isVisible()

describe("sign-in in the browser", () => {
  test("a viewer signs in through SSO, sees their name and role, and is offered no action", async () => {
    await signInWithSso("vic")
    expect(await page.locator("#user .user").textContent()).toBe("vic")
    expect(await page.locator("#user .role").textContent()).toBe("viewer")
    // Reads work: the dashboard and the containers list.
    await show(page, `${svc.url}/#/containers`)
    await page.locator(`a[href="#/containers/${container}"]`).first().waitFor()
    // The buttons are there, not shown.
    const actions = page.getByRole("button", { name: /^(Stop|Delete) /, includeHidden: true })
    expect(await actions.count()).toBeGreaterThan(0)
    expect(await actions.first().isVisible()).toBe(false)
    // Nor is a selection for bulk actions.
    expect(
      await page
        .getByRole("checkbox", { name: /^Select / })
        .first()
        .isVisible(),
    ).toBe(false)
    await show(page, `${svc.url}/#/containers/${container}`)
    expect(await page.getByRole("link", { name: "Terminal", exact: true, includeHidden: true }).isVisible()).toBe(false)
    expect(await page.getByRole("link", { name: "Logs" }).isVisible()).toBe(true)
    await show(page, `${svc.url}/#/stacks`)
    expect(await page.getByRole("link", { name: "New stack", includeHidden: true }).isVisible()).toBe(false)
    expect(await visible('nav a[href="#/prune"]')).toBe(false)
    expect(await visible('nav a[href="#/audit"]')).toBe(false)
    expect(await visible('nav a[href="#/host"]')).toBe(false)
    expect(await visible('nav a[href="#/tokens"]')).toBe(true)
    await signOut()
  }, 120_000)

  test("an admin is offered every action and reads the audit log, with the sign-ins in it", async () => {
    await signInWithSso("ada")
    expect(await page.locator("#user .role").textContent()).toBe("admin")
    await show(page, `${svc.url}/#/stacks`)
    expect(await page.getByRole("link", { name: "New stack" }).isVisible()).toBe(true)
    expect(await visible('nav a[href="#/prune"]')).toBe(true)
    await page.locator('nav a[href="#/audit"]').click()
    await page.getByRole("heading", { name: "Audit log" }).waitFor()
    await page.locator("#audit-action").fill("login")
    await page.getByRole("button", { name: "Filter" }).click()
    const rows = page.locator("main table tbody tr")
    await rows.first().waitFor()
    const text = await page.locator("main table").textContent()
    expect(text).toContain("ada")
    expect(text).toContain("vic")
    expect(text).toContain("/api/auth/oidc/callback")
    // A refusal, and the result filter that finds it.
    expect(
      (await fetch(`${svc.url}/api/volumes`, { headers: { authorization: "Bearer hm_not-a-token" } })).status,
    ).toBe(401)
    await page.locator("#audit-action").fill("")
    await page.locator("#audit-result").selectOption("refused")
    await page.getByRole("button", { name: "Filter" }).click()
    await page.locator("main table tbody tr", { hasText: "/api/volumes" }).waitFor()
    expect(await page.locator("main table tbody tr", { hasText: "/api/auth/oidc/callback" }).count()).toBe(0)
    await signOut()
  }, 120_000)

  test("a token is shown once, works, and stops working when revoked", async () => {
    await signInWithSso("ada")
    await page.locator('nav a[href="#/tokens"]').click()
    await page.getByRole("heading", { name: "API tokens" }).waitFor()
    await page.locator("#token-name").fill("ci")
    await page.locator("#token-role").selectOption("viewer")
    await page.getByRole("button", { name: "Create" }).click()
    const token = await page.locator(".token-value").inputValue()
    expect(token).toStartWith("hm_")
    const withToken = () =>
      fetch(`${svc.url}/api/containers`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.status)
    expect(await withToken()).toBe(200)
    // The list shows the token's name and role, never its value.
    await page.getByRole("button", { name: "Revoke ci" }).waitFor()
    expect(await page.locator("main").textContent()).not.toContain(token.slice(3))
    await page.reload()
    await page.getByRole("button", { name: "Revoke ci" }).click()
    await page.getByRole("button", { name: "Confirm" }).click()
    await page.getByText("Revoked ci").waitFor()
    expect(await withToken()).toBe(401)
    await signOut()
  }, 120_000)

  test("signed out, every page is the sign-in page, with the local form and SSO", async () => {
    await page.goto(`${svc.url}/#/containers`)
    await page.getByRole("heading", { name: "Sign in" }).waitFor()
    expect(await page.locator("#signin-user").isVisible()).toBe(true)
    expect(await page.getByRole("link", { name: "Sign in with SSO" }).isVisible()).toBe(true)
    expect(await visible("nav")).toBe(false)
    await page.locator("#signin-user").fill("nobody")
    await page.locator("#signin-password").fill("wrong password")
    await page.getByRole("button", { name: "Sign in" }).click()
    await page.getByRole("alert").waitFor()
    expect(await page.getByRole("alert").textContent()).toContain("wrong user name or password")
  }, 60_000)

  test("a local user signs in with the form; an operator acts but is offered no prune or audit", async () => {
    const add = Bun.spawn(["bun", "server.ts", "user", "add", "lou", "--role", "operator"], {
      cwd: `${import.meta.dir}/../..`,
      env: { ...process.env, SVC_DATA: svc.dataDir },
      stdin: new Blob(["lou's long password\n"]),
      stdout: "pipe",
      stderr: "pipe",
    })
    expect(await add.exited).toBe(0)
    await page.goto(svc.url)
    await page.locator("#signin-user").fill("lou")
    await page.locator("#signin-password").fill("lou's long password")
    await page.getByRole("button", { name: "Sign in" }).click()
    await page.locator("#user .user").waitFor()
    expect(await page.locator("#user").textContent()).toContain("operator")
    await show(page, `${svc.url}/#/containers`)
    await page.locator(`a[href="#/containers/${container}"]`).first().waitFor()
    expect(
      await page
        .getByRole("button", { name: /^Stop / })
        .first()
        .isVisible(),
    ).toBe(true)
    expect(await visible('nav a[href="#/prune"]')).toBe(false)
    expect(await visible('nav a[href="#/audit"]')).toBe(false)
    await page.getByRole("button", { name: "Sign out" }).click()
    await page.getByRole("heading", { name: "Sign in" }).waitFor()
  }, 60_000)
})

test("with sign-in off the UI shows no user, no sign-in and no token or audit pages", async () => {
  const off = await startService({ DOCKER_HOST: engineHost() })
  try {
    await show(page, `${off.url}/#/containers`)
    expect(await page.locator("main h1").first().textContent()).toBe("Containers")
    await page.locator(`a[href="#/containers/${container}"]`).first().waitFor()
    expect(await visible("#user")).toBe(false)
    expect(await visible('nav a[href="#/tokens"]')).toBe(false)
    expect(await visible('nav a[href="#/audit"]')).toBe(false)
    expect(await visible('nav a[href="#/prune"]')).toBe(true)
    expect(
      await page
        .getByRole("button", { name: /^Delete / })
        .first()
        .isVisible(),
    ).toBe(true)
  } finally {
    await off.stop()
  }
}, 60_000)

/**
 * `check` on the sign-in page, then, signed in as an admin, on the tokens page (with a token in its
 * list) and the audit log (with entries); its faults named by page.
 */
async function eachPage(check: (name: string) => Promise<string[]>): Promise<string[]> {
  const faults: string[] = []
  const checked = async (name: string) => faults.push(...(await check(name)).map((f) => `${name}: ${f}`))
  await page.goto(svc.url)
  await page.getByRole("heading", { name: "Sign in" }).waitFor()
  await checked("signin")
  await signInWithSso("ada")
  const tokens: unknown[] = await page.evaluate(() => fetch("/api/tokens").then((r) => r.json()))
  if (!tokens.length)
    await page.evaluate(() =>
      fetch("/api/tokens", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "ci-deploys", role: "operator" }),
      }).then((r) => r.json()),
    )
  for (const [name, heading] of [
    ["tokens", "API tokens"],
    ["audit", "Audit log"],
  ]) {
    await page.goto(`${svc.url}/#/${name}`)
    await page.getByRole("heading", { name: heading }).waitFor()
    await page.locator("main table tbody tr").first().waitFor()
    await checked(name)
  }
  return faults
}

describe("the pages sign-in shows", () => {
  test("at 1280 px, light: nothing reaches out of the viewport, axe-core finds no serious or critical violation; screenshots", async () => {
    await page.emulateMedia({ colorScheme: "light" })
    const faults = await eachPage(async (name) => {
      const found = [...(await overflow(page)), ...(await violations(page))]
      await snap(page, "light", name)
      return found
    })
    expect(faults).toEqual([])
  }, 120_000)

  test("dark: axe-core finds no serious or critical violation (the colours' contrast among them); screenshots", async () => {
    await page.emulateMedia({ colorScheme: "dark" })
    try {
      const faults = await eachPage(async (name) => {
        const found = await violations(page)
        await snap(page, "dark", name)
        return found
      })
      expect(faults).toEqual([])
    } finally {
      await page.emulateMedia({ colorScheme: null })
    }
  }, 120_000)

  test("at 390 px: nothing reaches out of the viewport, the header with the user and sign-out among it; screenshots", async () => {
    await page.setViewportSize({ width: 390, height: 844 })
    try {
      const faults = await eachPage(async (name) => {
        const found = await overflow(page)
        // Signed out there is no menu to open.
        if (name === "signin" && (await page.locator("#menu").isVisible()))
          found.push("a Menu button with no menu behind it")
        await snap(page, "phone", name)
        return found
      })
      expect(faults).toEqual([])
    } finally {
      await page.setViewportSize({ width: 1280, height: 860 })
    }
  }, 120_000)
})
