// A git stack's source on its page (GET /api/stacks/{name}/git): the repository, ref and compose
// file, the commit deployed beside the remote's head (and whether they differ), the last sync's time,
// verdict and error, a commit the schedule holds back, a sync under way (what it deploys, and whether
// another waits behind it), and "Sync now" (POST .../git/sync). A stack without git shows nothing.
import type * as v from "valibot"
import type { gitStatusSchema, syncOutcomeSchema } from "#lib/git/schemas.ts"
import { HttpError } from "#lib/http/http-error.ts"
import { enc, get, post } from "../api.ts"
import { action, badge, errorBox, h, render, toast, when } from "../dom.ts"

type GitStatus = v.InferOutput<typeof gitStatusSchema>
type SyncOutcome = v.InferOutput<typeof syncOutcomeSchema>

const short = (commit: string | null) => (commit ? h("code", { title: commit }, commit.slice(0, 12)) : "—")

/** The card; it fills itself, and stays empty and hidden for a stack without git. `synced` runs after a sync. */
export function gitCard(name: string, signal: AbortSignal, synced: () => void): HTMLElement {
  const el = h("section", { class: "card", "aria-label": "Git source" })
  el.hidden = true
  const show = async () => {
    let s: GitStatus
    try {
      s = await get<GitStatus>(`/stacks/${enc(name)}/git`, { signal })
    } catch (err) {
      if ((err as Error)?.name === "AbortError") return
      el.hidden = err instanceof HttpError && err.status === 404
      return render(el, el.hidden ? null : errorBox(err, () => void show()))
    }
    el.hidden = false
    const last = s.last_sync
    const sync = action("Sync now", () => post<SyncOutcome>(`/stacks/${enc(name)}/git/sync`, {}), {
      label: `Sync ${name} from git`,
      done: (o: SyncOutcome) => {
        toast(
          `Sync of ${name}: ${o.verdict}${o.error ? `. ${o.error}` : ""}`,
          o.verdict === "applied" || o.verdict === "unchanged" ? "info" : "error",
        )
        synced()
        void show()
      },
    })
    render(
      el,
      h("h2", null, "Git"),
      h(
        "p",
        null,
        h("span", { class: "mono" }, s.url),
        ` ${s.ref} · ${s.path}`,
        s.push ? " · push on" : "",
        s.schedule ? ` · every ${s.schedule}` : "",
      ),
      h(
        "dl",
        { style: "display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; margin: 0 0 .75rem" },
        h("dt", null, "Deployed"),
        h("dd", null, short(s.deployed_commit)),
        s.syncing && h("dt", null, "Syncing"),
        s.syncing &&
          h(
            "dd",
            null,
            s.syncing.step === "fetching" ? "fetching" : ["deploying ", short(s.syncing.commit)],
            ` (${s.syncing.trigger}, since `,
            when(s.syncing.since),
            ")",
            s.syncing.queued ? "; another sync follows it" : "",
          ),
        h("dt", null, "Remote head"),
        h(
          "dd",
          null,
          s.remote_error ?? short(s.remote_head),
          " ",
          s.remote_head && (s.differ ? badge("differs") : badge("up to date")),
        ),
        h("dt", null, "Last sync"),
        h(
          "dd",
          null,
          last
            ? [when(last.time), " ", badge(last.verdict), last.error ? h("div", { class: "muted" }, last.error) : null]
            : "never",
        ),
        s.schedule_held && h("dt", null, "Held"),
        s.schedule_held &&
          h(
            "dd",
            null,
            "The schedule does not try ",
            short(s.schedule_held),
            " again until the branch moves; Sync now tries it.",
          ),
      ),
      h("div", { class: "actions" }, sync),
    )
  }
  void show()
  return el
}
