// Every template shipped with the service, through the same guard and compose model as a deploy:
// each one's preview with its defaults (and generated secrets) on the real service, whose compose CLI
// is the flavour's own (v1 `docker-compose` 1.29 on Debian 12, the v2 plugin on the current engine),
// must pass the guard with its services, images and named volumes, and publish only the ports its
// variables name. Nothing is pulled or started: the images are pinned tags of public registries.
import { afterAll, beforeAll, expect, test } from "bun:test"
import { shipped } from "#lib/catalog/shipped.gen.ts"
import { engineHost } from "../support/engine.ts"
import { startService, type Service } from "../support/service.ts"

let svc: Service

beforeAll(async () => {
  svc = await startService({ DOCKER_HOST: engineHost() })
}, 60_000)
afterAll(() => svc.stop())

test.each(Object.keys(shipped))(
  "%s passes the guard on this flavour's compose",
  async (id) => {
    const res = await fetch(`${svc.url}/api/catalog/templates/curated/${id}/preview`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: `hm-shipped-${id}` }),
    })
    const body = (await res.json()) as any
    expect(res.status).toBe(200)
    expect(body.guard).toMatchObject({ ok: true, code: null })
    expect(body.blockers).toEqual([])
    expect(body.guard.services.length).toBeGreaterThan(0)
    expect(body.guard.images.every((i: string) => /:[^:/]+$/.test(i) && !i.endsWith(":latest"))).toBe(true)
    expect(body.guard.binds.every((b: { source: string }) => b.source.includes(`/stacks/hm-shipped-${id}/`))).toBe(true)
    expect(body.guard.volumes.length).toBeGreaterThan(0)
    for (const v of body.guard.volumes) expect(v).toStartWith(`hm-shipped-${id}_`)
    expect(JSON.stringify(body.env)).not.toMatch(/"secret":true,"generated":true[^}]*"value":"[^"]/)
  },
  60_000,
)
