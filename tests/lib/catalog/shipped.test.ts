// The shipped catalog: the embedded file is what scripts/catalog.ts writes from lib/catalog/shipped/,
// and every template reads whole: a version, a health check and named volumes for each service, no
// host path, a secret never given a default.
import { expect, test } from "bun:test"
import { parse } from "yaml"
import { folderTemplate } from "#lib/catalog/folder.ts"
import { shipped } from "#lib/catalog/shipped.gen.ts"
import { shippedFiles } from "../../../scripts/catalog.ts"

test("lib/catalog/shipped.gen.ts is what `bun scripts/catalog.ts` writes", () => {
  expect(shipped).toEqual(shippedFiles())
})

test.each(Object.keys(shipped))("%s: pinned images, a health check, named volumes, generated secrets", (id) => {
  const t = folderTemplate(shipped[id]!, id, new Set())
  expect(t.id).toBe(id)
  expect(t.version).toBeTruthy()
  expect(t.logo && "data" in t.logo).toBe(true)
  const doc = parse(t.compose!)
  for (const [name, s] of Object.entries<Record<string, any>>(doc.services)) {
    expect(`${name}: ${s.image}`).toMatch(/:[^:@/]+$/)
    expect(s.image).not.toMatch(/:latest$/)
    expect(s.healthcheck?.test, `${id}/${name} has a health check`).toBeDefined()
    for (const m of s.volumes ?? []) {
      const source = String(m).split(":")[0]!
      // Named volumes, or one of the template's own files.
      expect(source.startsWith("/"), `${id}/${name} binds no host path`).toBe(false)
      if (source.startsWith("./")) expect(Object.keys(t.files ?? {})).toContain(source.slice(2))
      else expect(Object.keys(doc.volumes ?? {})).toContain(source)
    }
  }
  for (const v of t.variables.filter((x) => x.secret)) expect(v).toMatchObject({ generate: true, default: null })
  for (const v of t.variables)
    expect(
      t.compose!.includes(`\${${v.key}}`) ||
        Object.values(t.files ?? {})
          .join("")
          .includes(`{$${v.key}}`),
    ).toBe(true)
})
