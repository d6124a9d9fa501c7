import { sourceInput, sourceSchema } from "#lib/catalog/schemas.ts"
import { sourceView } from "#lib/catalog/sources.ts"
import { defineRoute } from "#lib/service/handler.ts"

export default defineRoute({
  role: "admin",
  detail: {
    operationId: "addTemplateSource",
    summary:
      "Keep a template source and read it at once (201): a Portainer list (format 2 or 3) at an http(s) URL or in a git repository (`git.path`: the list's file), or a folder of templates of our own format in a git repository (`git.path`: the folder). Its addresses, and those its templates name (logos, repositories), may not be private, loopback or link-local unless `local` is true. A first read that fails keeps the source with the reason in `last_read`",
    tags: ["catalog"],
  },
  body: sourceInput,
  response: { 201: sourceSchema },
  handler: async ({ body, ctx, set, request }) => {
    await ctx.catalog.sources.add(body)
    set.status = 201
    return sourceView(await ctx.catalog.refresh(body.name, request.signal))
  },
})
