// Cluster: this server's role, the join token (mint, copy), the nodes with their status and
// probes, join and leave. Always about this server, whichever node the switcher shows.
import { HttpError } from "#lib/http/http-error.ts"
import { del, enc, get, post } from "../api.ts"
import { action, badge, copyText, errorBox, h, load, render, table, toast } from "../dom.ts"

const local = { local: true }
const nodesChanged = () => dispatchEvent(new Event("hm:nodes-changed"))

function roleText(c: any): string {
  const role = c?.role ?? (c?.control_plane === true ? "control-plane" : c?.member ? "member" : "none")
  return String(role)
}

export function clusterPage(main: HTMLElement, _: Record<string, string>, signal: AbortSignal): void {
  const role = h("section", { class: "card", "aria-labelledby": "role-h" })
  const token = h("section", { class: "card", "aria-labelledby": "token-h", "data-needs": "admin" })
  const nodes = h("section", { class: "card", "aria-labelledby": "nodes-h" })
  render(main, h("h1", null, "Cluster"), h("div", { class: "cards two" }, role, token), nodes)

  const reloadRole = load(
    role,
    () => get("/cluster", { ...local, signal }),
    (c) => {
      const r = roleText(c)
      const join = joinForm(() => {
        void reloadRole()
        void reloadToken()
      })
      return [
        h("h2", { id: "role-h" }, "This server"),
        h("p", null, "Role: ", badge(r)),
        c?.control_plane_url && h("p", null, "Control plane: ", h("span", { class: "mono" }, c.control_plane_url)),
        typeof c?.nodes === "number" && h("p", null, `Nodes: ${c.nodes}`),
        r === "member" &&
          action("Leave the cluster", () => del("/cluster/membership", local), {
            class: "danger",
            needs: "admin",
            confirm:
              "Leave the cluster? The control plane is asked to drop this server; it is forgotten here in any case.",
            done: (res) => {
              toast(
                res?.removed ? "Left the cluster" : `Left locally; ${res?.error ?? "the control plane did not answer"}`,
              )
              void reloadRole()
              void reloadToken()
            },
          }),
        r === "control-plane" &&
          action("Retire the token", () => del("/cluster/membership", local), {
            class: "danger",
            needs: "admin",
            confirm:
              "Retire the token? Nodes that joined with it turn unauthorized; the registry stays. Minting a new token makes this server a control plane again.",
            done: () => {
              toast("Token retired")
              void reloadRole()
              void reloadToken()
            },
          }),
        r === "none" && join,
      ]
    },
  )

  const reloadToken = load(
    token,
    async () => {
      const token = get("/cluster/token", { ...local, signal }).catch((err) =>
        err instanceof HttpError && err.status === 404 ? null : Promise.reject(err),
      )
      return [await token, roleText(await get("/cluster", { ...local, signal }))] as const
    },
    ([t, role]) => {
      const value = typeof t === "string" ? t : (t?.token ?? "")
      const field = h("input", {
        readOnly: true,
        value,
        class: "mono",
        id: "token-value",
        "aria-label": "Join token",
        type: "password",
      })
      const show = h("button", { type: "button", class: "small", "aria-pressed": "false" }, "Show")
      show.addEventListener("click", () => {
        const visible = field.type === "password"
        field.type = visible ? "text" : "password"
        show.textContent = visible ? "Hide" : "Show"
        show.setAttribute("aria-pressed", String(visible))
      })
      return [
        h("h2", { id: "token-h" }, "Join token"),
        value
          ? h(
              "div",
              { class: "token" },
              field,
              show,
              h("button", { type: "button", class: "small", onclick: () => void copyText(value, field) }, "Copy"),
            )
          : h("p", { class: "empty" }, "No token yet. Minting one makes this server a control plane."),
        role !== "member" &&
          action(value ? "Mint a new token" : "Mint a token", () => post("/cluster/token", undefined, local), {
            confirm: value
              ? "Mint a new token? The current one stops working: nodes that joined with it turn unauthorized."
              : undefined,
            needs: "admin",
            done: () => {
              toast("Token minted")
              void reloadToken()
              void reloadRole()
            },
          }),
      ]
    },
  )

  const reloadNodes = load(
    nodes,
    async () => {
      const list = await get("/nodes", { ...local, signal })
      // The server switcher offers the nodes as this page lists them.
      nodesChanged()
      return list
    },
    (list: any[]) => [
      h(
        "div",
        { class: "page-head" },
        h("h2", { id: "nodes-h" }, "Nodes"),
        action("Check all", () => post("/nodes/check", undefined, local), {
          done: () => void reloadNodes(),
          needs: "admin",
        }),
      ),
      table(
        Array.isArray(list) ? list : [],
        [
          { title: "Name", cell: (n: any) => n.name },
          { title: "Address", cell: (n: any) => h("span", { class: "mono" }, n.url) },
          {
            title: "Status",
            cell: (n: any) => [badge(n.status ?? "unknown"), n.error && h("small", { class: "muted" }, " ", n.error)],
          },
          {
            title: "Actions",
            cell: (n: any) =>
              h(
                "div",
                { class: "actions" },
                action("Check", () => post(`/nodes/${enc(n.name)}/check`, undefined, local), {
                  done: () => void reloadNodes(),
                  label: `Check ${n.name}`,
                  needs: "admin",
                }),
                action("Remove", () => del(`/nodes/${enc(n.name)}`, local), {
                  class: "small danger",
                  confirm: `Remove ${n.name} from the registry? The node itself is untouched.`,
                  needs: "admin",
                  done: () => void reloadNodes(),
                  label: `Remove ${n.name}`,
                }),
              ),
          },
        ],
        "No nodes have joined. On another server, join with this server's address and token.",
        "Nodes",
      ),
    ],
  )
}

function joinForm(done: () => void): HTMLElement {
  const field = (id: string, label: string, props: Record<string, unknown> = {}) => {
    const input = h("input", { id, autocomplete: "off", ...props })
    return [input, h("div", { class: "field" }, h("label", { for: id }, label), input)] as const
  }
  const [url, urlField] = field("join-url", "Control plane URL", {
    required: true,
    placeholder: "http://10.0.0.1:8080",
    type: "url",
  })
  const [tok, tokField] = field("join-token", "Token", { required: true, type: "password" })
  const [name, nameField] = field("join-name", "Name for this server (optional)")
  const [adv, advField] = field("join-advertise", "Address the control plane reaches this server at (optional)", {
    placeholder: "http://10.0.0.2:8080",
  })
  const problems = h("div")
  const form = h(
    "form",
    { class: "join", "data-needs": "admin" },
    h("h3", null, "Join a control plane"),
    urlField,
    tokField,
    nameField,
    advField,
    problems,
    h("button", { type: "submit" }, "Join"),
  )
  form.addEventListener("submit", async (e) => {
    e.preventDefault()
    render(problems)
    try {
      await post(
        "/cluster/join",
        {
          control_plane_url: url.value,
          token: tok.value,
          ...(name.value ? { name: name.value } : {}),
          ...(adv.value ? { advertise: adv.value } : {}),
        },
        local,
      )
      toast("Joined")
      done()
    } catch (err) {
      render(problems, errorBox(err))
    }
  })
  return form
}
