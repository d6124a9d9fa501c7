// A stack installed from a template, on its page (GET /api/stacks/{name}/template): the template and
// version it runs, a newer version of it with the compose diff and "Update" (the guarded update), and
// for every stack "Save as template" (the saved source; its secrets left out).
import type * as v from "valibot"
import type { savedSchema, statusSchema, updateResult } from "#lib/catalog/schemas.ts"
import { HttpError } from "#lib/http/http-error.ts"
import { enc, get, post } from "../api.ts"
import { action, errorBox, h, render, toast } from "../dom.ts"

type Status = v.InferOutput<typeof statusSchema>

export function templateCard(name: string, signal: AbortSignal, changed: () => void): HTMLElement {
  const el = h("section", { class: "card", "aria-label": "Template" })
  const save = action(
    "Save as template",
    () => post<v.InferOutput<typeof savedSchema>>(`/stacks/${enc(name)}/as-template`, { replace: true }),
    {
      label: `Save as template: ${name}`,
      done: (s) =>
        toast(`Saved as the template ${s.id} (secrets left out${s.secrets.length ? `: ${s.secrets.join(", ")}` : ""})`),
    },
  )
  const show = async () => {
    let s: Status
    try {
      s = await get<Status>(`/stacks/${enc(name)}/template`, { signal })
    } catch (err) {
      if ((err as Error)?.name === "AbortError") return
      if (err instanceof HttpError && err.status === 404) return render(el, h("div", { class: "actions" }, save))
      return render(
        el,
        errorBox(err, () => void show()),
      )
    }
    const label = `${s.installed.title}${s.installed.version ? ` ${s.installed.version}` : ""}`
    render(
      el,
      h("h2", null, "Template"),
      h(
        "p",
        null,
        "Installed from ",
        h("a", { href: `#/catalog/${enc(s.installed.source)}/${enc(s.installed.id)}` }, label),
        ` (${s.installed.source})`,
        s.edited ? h("span", { class: "muted" }, "; its compose file was edited here since") : null,
      ),
      s.missing && h("p", { class: "muted" }, s.missing),
      s.update_available
        ? [
            h(
              "p",
              null,
              h("strong", null, `A newer version is available${s.latest?.version ? `: ${s.latest.version}` : ""}.`),
              s.edited ? " Updating replaces the edits shown below." : "",
            ),
            s.new_variables.length
              ? h("p", null, `New variables (defaults or generated): ${s.new_variables.map((x) => x.key).join(", ")}`)
              : null,
            h(
              "pre",
              { class: "diff", "aria-label": "Compose diff" },
              s.diff
                .split("\n")
                .map((l) => h("span", { class: l.startsWith("+") ? "add" : l.startsWith("-") ? "del" : "" }, `${l}\n`)),
            ),
          ]
        : h("p", { class: "muted" }, "It runs the template's current version."),
      h(
        "div",
        { class: "actions" },
        s.update_available &&
          action("Update", () => post<v.InferOutput<typeof updateResult>>(`/stacks/${enc(name)}/template/update`, {}), {
            label: `Update ${name} to its template's new version`,
            confirm: `Deploy the template's new version on ${name}? It is watched and rolled back if it fails.`,
            done: (r) => {
              toast(
                `Update of ${name}: ${r.stack.update?.verdict ?? "deployed"}`,
                r.stack.update?.verdict === "updated" ? "info" : "error",
              )
              changed()
              void show()
            },
          }),
        save,
      ),
    )
  }
  void show()
  return el
}
