// The MCP tools: each one is a route of the API, named and described for an agent. Path parameters
// come from the arguments of the same name; the other arguments become the query of a GET or DELETE
// and the JSON body of a POST or PUT. A tool's arguments and answer are described by its route's own
// schemas (./schemas.ts), so the words for an argument live beside the route.
import type { McpMode } from "./config.ts"
import { segment, type ApiCall } from "./api.ts"

export interface Tool {
  name: string
  description: string
  /** "METHOD /path/:param" of the route the tool calls. */
  route: string
  /** The argument sent as the whole JSON body (else the arguments left over form an object). */
  bodyArg?: string
  /** Query values the tool always sends. */
  fixed?: Record<string, string>
  /** Argument values the tool uses when the agent leaves them out (the route's own default may differ). */
  defaults?: Record<string, unknown>
  /** Changes something: offered only in full mode. */
  changes?: boolean
  /** Removes something that cannot be brought back. */
  destructive?: boolean
}

export const tools: Tool[] = [
  // Reading
  {
    name: "system_summary",
    route: "GET /api/dashboard",
    description:
      "The host at a glance: whether everything is fine (stacks by health, failed updates, updates available, critical and high CVEs, nodes, swarm services below their replicas, overdue backups, CPU, memory and disk over the last hour), engine version, containers by state, image, volume and network counts, disk use, and the full container list.",
  },
  {
    name: "list_containers",
    route: "GET /api/containers",
    description:
      "List containers with id, name, image, state, status, ports, labels and the stack/service they belong to.",
  },
  {
    name: "inspect_container",
    route: "GET /api/containers/:id",
    description:
      "One container in detail: state, exit code, start time, command, mounts, networks, ports, labels. Its environment is never shown.",
  },
  {
    name: "container_logs",
    route: "GET /api/containers/:id/logs",
    fixed: { follow: "false" },
    description: "The last lines of a container's log (no following), each {service, container, stream, ts, line}.",
  },
  {
    name: "container_stats",
    route: "GET /api/containers/:id/stats",
    description:
      "One container's resource use from the latest sample: CPU % (100 = one core, and of its limit), memory without page cache and its limit, network and block I/O bytes per second, PIDs; null while it is not running.",
  },
  {
    name: "stack_stats",
    route: "GET /api/stacks/:name/stats",
    description:
      "A stack's resource use: sums over its running containers (CPU %, memory, network and block I/O per second, PIDs) and each container's latest sample.",
  },
  {
    name: "event_history",
    route: "GET /api/events/history",
    description:
      "The last 100 events, oldest first: the engine's (container start/stop/die, image pull, …) and the service's own (compose output, failures).",
  },
  {
    name: "list_images",
    route: "GET /api/images",
    description: "Local images with tags, size, creation time and their vulnerability scan summary.",
  },
  {
    name: "list_volumes",
    route: "GET /api/volumes",
    description: "Volumes with driver, mount point, labels and the stack they belong to.",
  },
  {
    name: "list_volume_files",
    route: "GET /api/volumes/:name/files",
    description:
      "A folder of a volume (path relative to its root; empty for the root): entries with name, kind (file, folder, link, other), size, mode, uid, gid, modified time and a link's target, folders first, sorted and paged (offset, limit; total counts them all). A name that is not UTF-8 comes with name64 (its bytes, base64url): pass path64 to name such a path.",
  },
  {
    name: "read_volume_file",
    route: "GET /api/volumes/:name/files/text",
    description:
      "A text file of a volume: its text and the version to pass to write_volume_file (refused above 2 MiB or when not UTF-8). Links are never followed.",
  },
  {
    name: "list_container_files",
    route: "GET /api/containers/:id/files",
    description:
      "A folder of a container's filesystem (running or stopped), listed as list_volume_files lists a volume's; a folder near the root costs as much as everything below it.",
  },
  {
    name: "read_container_file",
    route: "GET /api/containers/:id/files/text",
    description: "A text file of a container's filesystem: its text and the version to pass to write_container_file.",
  },
  {
    name: "container_changes",
    route: "GET /api/containers/:id/changes",
    description: "What changed in a container's filesystem against its image: each path added, modified or deleted.",
  },
  {
    name: "list_networks",
    route: "GET /api/networks",
    description: "Networks with driver, scope, labels and the stack they belong to.",
  },
  {
    name: "image_scan",
    route: "GET /api/images/:id/scan",
    description:
      "The latest vulnerability scan of an image with its full CVE list (id, package, installed and fixed version, severity, title, link).",
  },
  {
    name: "list_stacks",
    route: "GET /api/stacks",
    description:
      "Every stack with its state (running, partly running, stopped, paused), services and containers, current_version and env_pending; compose projects made elsewhere have managed: false.",
  },
  {
    name: "inspect_stack",
    route: "GET /api/stacks/:name",
    description: "One stack: state, services and their containers, current_version, env_pending.",
  },
  {
    name: "stack_compose",
    route: "GET /api/stacks/:name/compose",
    description: "The stack's compose file, as {name, content}.",
  },
  {
    name: "stack_files",
    route: "GET /api/stacks/:name/files",
    description:
      "The stack's files besides its compose file (an extends: or include:d file, a bound nginx.conf, env files), as [{path, size}]; its data folders are not among them.",
  },
  {
    name: "read_stack_file",
    route: "GET /api/stacks/:name/files/:path",
    description: "One of the stack's files, as {path, content}.",
  },
  {
    name: "stack_env",
    route: "GET /api/stacks/:name/env",
    description: "The stack's environment as [{key, value, secret}]; the value of a secret is always null.",
  },
  {
    name: "stack_versions",
    route: "GET /api/stacks/:name/versions",
    description:
      "The stack's versions, oldest first: number, time, action, whether current, and which keys changed (never a value).",
  },
  {
    name: "stack_git_status",
    route: "GET /api/stacks/:name/git",
    description:
      "A git stack's source (repository, ref, compose file's path; never its token or webhook secret), the commit deployed, the remote's head, whether they differ, the last sync's time, verdict and error, and a commit the schedule holds back (schedule_held).",
  },
  {
    name: "stack_logs",
    route: "GET /api/stacks/:name/logs",
    fixed: { follow: "false" },
    description:
      "The last lines of every container of the stack (tail counts per container, no following), each {service, container, stream, ts, line}.",
  },
  {
    name: "list_nodes",
    route: "GET /api/nodes",
    description: "The cluster's node registry, ordered by name, each {name, url, status, error} from its last probe.",
  },
  {
    name: "inspect_node",
    route: "GET /api/nodes/:name",
    description: "One node of the registry: name, url, status of its last probe, error.",
  },
  {
    name: "cluster_status",
    route: "GET /api/cluster",
    description: "Whether this server is a control plane, a member of one, or neither.",
  },
  {
    name: "swarm_status",
    route: "GET /api/swarm",
    description:
      "Whether the engine is in a Docker Swarm, as manager or worker, with its cluster and node ids, the managers and (on a manager) the node count.",
  },
  {
    name: "list_swarm_nodes",
    route: "GET /api/swarm/nodes",
    description:
      "The Docker Swarm's nodes by hostname: role, availability (active, pause, drain), state (ready, down), engine version, labels, address, leader, running tasks. Not the node registry of list_nodes.",
  },
  {
    name: "list_swarm_services",
    route: "GET /api/swarm/services",
    description:
      "The swarm's services: image, mode, replicas desired and running, stack, published ports, update status.",
  },
  {
    name: "inspect_swarm_service",
    route: "GET /api/swarm/services/:id",
    description: "One swarm service with its tasks: node hostname, state, desired state, error, container id.",
  },
  {
    name: "swarm_service_logs",
    route: "GET /api/swarm/services/:id/logs",
    fixed: { follow: "false" },
    description:
      "The last lines of a swarm service's log (no following), each {service, container, stream, ts, line}; container is the task's id.",
  },
  {
    name: "list_alert_channels",
    route: "GET /api/alerts/channels",
    description:
      "The alert channels (webhook, ntfy, Gotify, Discord, Slack, Telegram, Matrix, Pushover, e-mail) with their addresses masked and their delivery status: failing, pending, last error.",
  },
  {
    name: "list_alert_rules",
    route: "GET /api/alerts/rules",
    description:
      "The alert rules: what each watches (crashes, OOM, unhealthy, restart loops, degraded stacks, events, overdue backups, nodes offline, swarm replicas, CPU, memory, disk), its scope and channels, whether it is muted, its conditions raised now.",
  },
  {
    name: "active_alerts",
    route: "GET /api/alerts/active",
    description: "The alert conditions raised now and not ended, with since when and how many times each came.",
  },
  {
    name: "alert_history",
    route: "GET /api/alerts/history",
    description:
      "Each alert sent or given up, newest first: rule, channel, result, tries, time; pass `cursor` (the answer's `next`) for older ones.",
  },

  // Changing (full mode)
  {
    name: "test_alert_channel",
    route: "POST /api/alerts/channels/:id/test",
    changes: true,
    description:
      "Send a test message to an alert channel now; answers whether it arrived and the service's answer when not.",
  },
  {
    name: "mute_alert_rule",
    route: "POST /api/alerts/rules/:id/mute",
    changes: true,
    description: "Mute an alert rule for `minutes` (0 unmutes): its conditions are followed and nothing is sent.",
  },
  {
    name: "container_action",
    route: "POST /api/containers/:id/action",
    changes: true,
    description: "Start, stop, restart, pause or unpause one container; returns its state afterwards.",
  },
  {
    name: "remove_container",
    route: "DELETE /api/containers/:id",
    changes: true,
    destructive: true,
    description: "Delete one container. A container of a stack comes back on the stack's next deploy.",
  },
  {
    name: "sync_stack_git",
    route: "POST /api/stacks/:name/git/sync",
    changes: true,
    description:
      "Fetch a git stack's ref; a new commit is deployed as a version recording it, watched for `watch` seconds and rolled back when the watch fails. Answers the verdict (applied, unchanged, rolled_back, rollback_failed, stopped, refused, failed).",
  },
  {
    name: "deploy_stack",
    route: "POST /api/stacks",
    changes: true,
    description:
      "Create or redeploy a stack: compose checks the file (with its other files), they are written, brought up, and a version is added. A file compose rejects changes nothing and the error carries compose's message. With `git` (repository URL, ref, compose file's path, token or ssh key) instead of `content`, a new stack is deployed from a repository; a name already taken is refused unless `attach` is true.",
  },
  {
    name: "write_volume_file",
    route: "PUT /api/volumes/:name/files/text",
    changes: true,
    description:
      "Write a text file of a volume, whole (owner and mode kept, a new file owned as its folder). Pass the version read_volume_file gave: a file changed since is not overwritten (file_changed); without it the file is replaced whatever it holds.",
  },
  {
    name: "write_container_file",
    route: "PUT /api/containers/:id/files/text",
    changes: true,
    description:
      "Write a text file of a container's filesystem, with the version read_container_file gave (file_changed when it changed since).",
  },
  {
    name: "write_stack_file",
    route: "PUT /api/stacks/:name/files/:path",
    changes: true,
    description:
      "Create or replace one of the stack's files without deploying (files_pending becomes true); compose checks the stack with it first. apply_stack deploys it as a new version.",
  },
  {
    name: "delete_stack_file",
    route: "DELETE /api/stacks/:name/files/:path",
    changes: true,
    description:
      "Remove one of the stack's files without deploying (files_pending becomes true); earlier versions keep it, so a rollback brings it back. apply_stack deploys the change.",
  },
  {
    name: "set_stack_env",
    route: "PUT /api/stacks/:name/env",
    changes: true,
    bodyArg: "env",
    description: "Replace a stack's environment without deploying (env_pending becomes true); apply_stack deploys it.",
  },
  ...Object.entries({
    restart: "Restart every container of the stack (paused ones excepted).",
    start: "Start every stopped container of the stack.",
    stop: "Stop every running or paused container of the stack (they are kept; start_stack starts them again).",
    pause: "Pause every running container of the stack.",
    unpause: "Resume every paused container of the stack.",
    apply:
      "Redeploy the stack with its stored environment and files, add a version and clear env_pending and files_pending.",
  }).map(
    ([action, description]): Tool => ({
      name: `${action}_stack`,
      route: `POST /api/stacks/:name/${action}`,
      changes: true,
      description,
    }),
  ),
  {
    name: "update_stack",
    route: "POST /api/stacks/:name/update",
    changes: true,
    description:
      "Guarded update: pull the stack's images; when one changed, bring the stack up and watch its health; a failed watch rolls back to the previous images by digest. Returns the stack with update.verdict: updated, rolled_back (update.reason says why), rollback_failed (update.fix says what to fix by hand) or unchanged (nothing restarted).",
  },
  {
    name: "rollback_stack",
    route: "POST /api/stacks/:name/rollback/:version",
    changes: true,
    description:
      "Redeploy the compose file, environment and files of an earlier version, which becomes current (no version is added).",
  },
  {
    name: "delete_stack",
    route: "DELETE /api/stacks/:name",
    changes: true,
    destructive: true,
    description: "Remove a stack: its containers, networks and files, versions included.",
  },
  {
    name: "scan_image",
    route: "POST /api/images/:id/scan",
    changes: true,
    description: "Queue a vulnerability scan of one image; read the result later with image_scan.",
  },
  {
    name: "scan_all_images",
    route: "POST /api/images/scan",
    changes: true,
    description: "Queue a vulnerability scan of every tagged image on the host.",
  },
  {
    name: "scan_stack",
    route: "POST /api/stacks/:name/scan",
    changes: true,
    description:
      "Queue a vulnerability scan of every image of a stack; images not present locally are listed as missing.",
  },
  {
    name: "copy_stack",
    route: "POST /api/stacks/:name/copy",
    changes: true,
    defaults: { dry_run: true },
    description:
      "Plan, and when dry_run is false perform, a copy of a stack to another node or under a new name: the plan lists volumes (with their names at the destination), binds, images, warnings and blockers. dry_run is true unless given: pass false only when the user asked for the real copy. A blocked copy is refused and changes nothing; the source is never changed.",
  },
  {
    name: "list_backup_repositories",
    route: "GET /api/backups/repos",
    description:
      "The restic repositories this server backs up to: name, repository, schedule, stacks, keep rules, hooks, and the last restic check (never a password).",
  },
  {
    name: "list_stack_backups",
    route: "GET /api/backups/:repo/:stack",
    description:
      "A stack's backups of this server in a repository, newest first: run, version, time and the snapshot of each piece (stack.json, volumes/<volume> or volumes/<volume>.tar).",
  },
  {
    name: "backup_status",
    route: "GET /api/backups/repos/:repo/status",
    description:
      "Each stack's newest backup of this server in a repository, its age, and whether it is overdue by the repository's schedule.",
  },
  {
    name: "backup_stack",
    route: "POST /api/backups/:repo/:stack/run",
    changes: true,
    description:
      "Back up a stack now into a repository: its records and its named volumes' data (and, with binds, its bind mounts under SVC_BIND_ROOTS); answers the bytes read and added (after deduplication).",
  },
  {
    name: "restore_stack_backup",
    route: "POST /api/backups/:repo/:stack/restore",
    changes: true,
    defaults: { dry_run: true },
    description:
      "Plan, and when dry_run is false perform, the restore of a stack's backup (the newest unless run is given) on this server (or on the node `to`) under its name or `as`: a taken name, a port in use or an existing volume (unless force) block it; binds brings its bind mounts back too. dry_run is true unless given: pass false only when the user asked for the real restore. The restored stack is written, not started.",
  },
  {
    name: "adopt_stack",
    route: "POST /api/stacks/:name/adopt",
    changes: true,
    defaults: { dry_run: true },
    description:
      "Adopt a compose project made elsewhere (managed: false in list_stacks) as a stack, keeping its containers: the plan lists files needed, binds rewritten or refused, the environment (secret-looking keys flagged), each service kept or that would be recreated, and blockers. dry_run is true unless given: pass false only when the user asked for the real adoption, and recreate only when they agreed. A blocked adoption changes nothing; done, the stack has version 1 (action adopt).",
  },
  {
    name: "adopt_containers",
    route: "POST /api/containers/adopt",
    changes: true,
    defaults: { dry_run: true },
    description:
      "Adopt containers started with docker run into a new stack: a compose file generated from their inspect data, and what it could not express. dry_run is true unless given: pass false only when the user asked for the real adoption; then the containers are replaced by the stack's (named volumes and binds keep their data), and if the stack does not come up, the old containers run again.",
  },
  {
    name: "scale_swarm_service",
    route: "POST /api/swarm/services/:id/scale",
    changes: true,
    description:
      "Set a replicated swarm service's replicas (a whole number, 0 or more); answers the service with its tasks.",
  },
  {
    name: "force_update_swarm_service",
    route: "POST /api/swarm/services/:id/force-update",
    changes: true,
    description: "Replace every task of a swarm service with the same spec, rolling as its update policy says.",
  },
  {
    name: "rollback_swarm_service",
    route: "POST /api/swarm/services/:id/rollback",
    changes: true,
    description: "The swarm's own rollback: the service back to the spec it had before its last update.",
  },
  {
    name: "update_swarm_node",
    route: "POST /api/swarm/nodes/:id",
    changes: true,
    description:
      "Change a swarm node's availability (active, pause, or drain: its tasks move to other nodes) or replace its labels; answers the node.",
  },
  {
    name: "check_stack_updates",
    route: "POST /api/stacks/:name/check-update",
    changes: true,
    description:
      "Ask each image's registry for the current digest of its tag; answers which images have a newer version (and records it).",
  },
  {
    name: "list_registries",
    route: "GET /api/registries",
    description:
      "The private registries this server keeps credentials for: name, address (host and path prefix), user, whether a password is kept (never the password), CA, insecure, the last test's result and the pull quota it reported.",
  },
  {
    name: "docker_hub_quota",
    route: "GET /api/images/pull-quota",
    description:
      "Docker Hub's pull quota now (remaining pulls in its window) for the kept Docker Hub credentials, or anonymous.",
  },
  {
    name: "test_registry",
    route: "POST /api/registries/:name/test",
    changes: true,
    description:
      "Log in to a kept registry and report what it answered: ok, how it authenticates (basic, bearer), or why not (refused credentials, an untrusted certificate, unreachable); the result is kept as its last_test.",
  },
  {
    name: "add_registry",
    route: "POST /api/registries",
    changes: true,
    description:
      "Keep a registry's credentials (name, address such as ghcr.io/my-org, username, password or access token, optional CA certificate, insecure for plain http): every pull, deploy, swarm deploy, update check and scan of its images uses them. The password is kept as a secret and never shown again. Admins only.",
  },
  {
    name: "remove_registry",
    route: "DELETE /api/registries/:name",
    changes: true,
    destructive: true,
    description:
      "Forget a kept registry and its password; its images are pulled anonymously from then on. Admins only.",
  },
  {
    name: "list_templates",
    route: "GET /api/catalog/templates",
    description:
      "The catalog's templates (the curated apps shipped with the service, the saved ones, and the lists an admin added): source, id, title, description, categories, kind, version. q searches (every word), category and source filter.",
  },
  {
    name: "template_detail",
    route: "GET /api/catalog/templates/:source/:id",
    description:
      "One template: its variables (key, type, default, choices, whether it is a secret generated at install), its note, warnings and compose file (or the repository it is read from).",
  },
  {
    name: "preview_template",
    route: "POST /api/catalog/templates/:source/:id/preview",
    description:
      "What installing a template as stack `name` with `values` (key → value) would do, changing nothing: the compose file, the environment (secrets hidden), what the guard says (services, images, ports, volumes, binds, or why it refuses), blockers, the update policy and backup schedule it would set, the note. A wrong value is named in the error.",
  },
  {
    name: "install_template",
    route: "POST /api/catalog/templates/:source/:id/install",
    changes: true,
    defaults: { dry_run: true },
    description:
      "Install a template as a new stack `name` with `values`: checked by the same guard as any deploy, then a guarded update policy (unless update_policy is false) and a backup schedule (backup: a repository, null for none). dry_run is true unless given: pass false only when the user asked for the install. The answer shows the generated secrets once: tell the user to keep them.",
  },
  {
    name: "pull_image",
    route: "POST /api/images/pull",
    changes: true,
    description:
      "Pull an image (ref) through the engine with its kept registry's credentials; answers the image id, the credentials used and Docker Hub's quota before the pull. A registry's refusal is an error naming it.",
  },
]

export const toolsFor = (mode: McpMode): Tool[] => tools.filter((t) => mode === "full" || !t.changes)

/** The route's method and path pattern. */
export function routeOf(tool: Tool): { method: ApiCall["method"]; path: string } {
  const [method, path] = tool.route.split(" ") as [ApiCall["method"], string]
  return { method, path }
}

export interface Split {
  params: Record<string, string>
  query: Record<string, unknown>
  body: unknown
}

/** The arguments as the route takes them: path parameters, query and body. Arguments left out take the tool's defaults. */
export function splitArgs(tool: Tool, args: Record<string, unknown>): Split {
  const { method, path } = routeOf(tool)
  const rest: Record<string, unknown> = { ...tool.defaults, ...args }
  const params: Record<string, string> = {}
  for (const [, key] of path.matchAll(/:(\w+)/g)) {
    if (rest[key!] !== undefined) params[key!] = String(rest[key!])
    delete rest[key!]
  }
  const defined = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined))
  if (method === "GET" || method === "DELETE") return { params, query: { ...defined, ...tool.fixed }, body: undefined }
  return { params, query: { ...tool.fixed }, body: tool.bodyArg ? defined[tool.bodyArg] : defined }
}

/** The API call a tool makes with these arguments. */
export function apiCall(tool: Tool, args: Record<string, unknown>): ApiCall {
  const { method, path } = routeOf(tool)
  const { params, query, body } = splitArgs(tool, args)
  const url = path.replace(/:(\w+)/g, (_, key: string) => segment(params[key] ?? ""))
  if (method === "GET" || method === "DELETE") return { method, path: url, query: query as ApiCall["query"] }
  return { method, path: url, query: tool.fixed, body }
}
