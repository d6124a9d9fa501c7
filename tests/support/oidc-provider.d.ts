// The parts of oidc-provider (which ships no types) that tests/support/oidc.ts uses.
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http"
  interface KoaContext {
    path: string
    body: unknown
  }
  interface Account {
    accountId: string
    claims(): Record<string, unknown>
  }
  export interface Configuration {
    clients: Record<string, unknown>[]
    jwks: { keys: Record<string, unknown>[] }
    claims: Record<string, string[]>
    scopes: string[]
    conformIdTokenClaims: boolean
    ttl: Record<string, number>
    findAccount(ctx: KoaContext, id: string): Promise<Account | undefined>
  }
  export default class Provider {
    constructor(issuer: string, configuration: Configuration)
    use(middleware: (ctx: KoaContext, next: () => Promise<void>) => Promise<void>): void
    on(event: "server_error", listener: (ctx: KoaContext, err: Error) => void): void
    callback(): (req: IncomingMessage, res: ServerResponse) => void
  }
}
