// Every environment variable the service reads, with its default and what it means: config.ts takes
// the defaults from here, and scripts/docs.ts writes the configuration tables of docs/operations.md
// and docs/auth.md from it (tests/lib/docs.test.ts fails when the pages and this table differ).
import { authDefaults } from "../auth/config.ts"
import { DEFAULT_ROLE_CLAIM, DEFAULT_SCOPES } from "../auth/oidc.ts"

export interface Variable {
  /** The value used when the variable is unset or empty; absent when there is none. */
  readonly default?: string | number | readonly string[]
  /** The default as the docs show it, when it is not the value itself (computed, or nothing). */
  readonly shown?: string
  /** What it does, in Markdown; links are relative to docs/. */
  readonly doc: string
}

export const VARIABLES = {
  SVC_ADDR: { default: "127.0.0.1:8080", doc: "listen address `host:port` (`[::1]:8080` for IPv6)" },
  SVC_DATA: {
    shown: "`./.data`",
    doc: "data directory: identity, cluster, stacks, scans (relative to the working directory)",
  },
  DOCKER_HOST: { default: "unix:///var/run/docker.sock", doc: "the engine: `unix:///path` or `tcp://host:port`" },
  DOCKER_API_VERSION: { shown: "(negotiated)", doc: "the Engine API version to speak (`1.45`), as for the docker CLI" },
  DOCKER_CONFIG: {
    shown: "`~/.docker`",
    doc: "where the docker CLI finds its plugins (each compose run gets a configuration of its own, linked to them) and the `config.json` an import of registries reads once; see [Registries](registries.md)",
  },
  SVC_LOGS_TAIL: { default: 100, doc: "lines a log stream starts with; the `tail` query overrides it" },
  SVC_CORS_ORIGINS: { doc: "comma-separated browser origins allowed besides the server's own; `*` for any" },
  SVC_ALLOWED_HOSTS: {
    doc: "comma-separated extra host names the server answers to (loopback names and IP addresses always pass); `*` for any",
  },
  SVC_MAX_JSON_BODY: {
    default: 32 * 1024 * 1024,
    shown: "`33554432` (32 MiB)",
    doc: "size limit of a JSON request body (413 above it); streamed routes have none",
  },
  SVC_TRANSFER_IMAGE: {
    default: "alpine:3",
    doc: "image of the throwaway container that moves volume data (pulled on first use; needs `du` for `?sizes=true`)",
  },
  SVC_HOST_SHELL: {
    shown: "(unset: off)",
    doc: "turns the host terminal on (`WS /api/host/shell`, admins only, and only with sign-in on unless the service listens on loopback only): the user its login shell runs as (`root` only when written); see [Files and the host](files.md)",
  },
  SVC_HOST_SHELL_IDLE: { default: 900, doc: "seconds a host terminal may go without a keystroke before it is closed" },
  SVC_HOST_SHELL_TRANSCRIPTS: {
    shown: "(unset: none kept)",
    doc: "a folder where each host terminal session's transcript (what it showed) is written, one file each, mode 0600",
  },
  SVC_PROBE_TIMEOUT_MS: {
    default: 5000,
    doc: "deadline of a node probe (both its calls) and of a leave call to the control plane; a join waits three times as long (the control plane probes back before it answers)",
  },
  SVC_MCP: {
    shown: "(unset: `/mcp` is 404)",
    doc: "turns the MCP endpoint on: `read-only` or `full` (any other value stops the service at start, exit 2); see [MCP](mcp.md)",
  },
  SVC_MCP_ALLOWED_HOSTS: {
    shown: "`localhost:PORT,127.0.0.1:PORT,[::1]:PORT` (the service's own port)",
    doc: "comma-separated `Host` values `/mcp` answers to; an entry without a port allows that name on any port; `*` for any",
  },
  SVC_MCP_ALLOWED_ORIGINS: {
    doc: "comma-separated browser origins allowed to call `/mcp`; a request without `Origin` is not a browser's and passes",
  },
  SVC_MCP_SESSION_TTL: { default: 30 * 60, doc: "seconds an MCP session may stay idle before it is dropped" },
  SVC_AUTH: { default: "off", doc: "sign-in: `local`, `oidc`, `proxy`, comma-separated; see [Sign-in](auth.md)" },
  SVC_AUTH_TRUSTED_PROXIES: {
    shown: "(none; required with `proxy`)",
    doc: "comma-separated addresses or CIDRs of the reverse proxies in front: the caller's address is read from their `X-Forwarded-For` (sign-in limits, audit), and with `proxy` their `Remote-User`, `Remote-Groups` are believed",
  },
  SVC_AUTH_ROLE_MAP: {
    shown: "(none: no access)",
    doc: "`group=role` entries, the first that matches wins, `*` for anyone: `admins=admin,ops=operator,*=viewer`; used by `proxy` and `oidc`",
  },
  SVC_AUTH_COOKIE_SECURE: {
    default: "off",
    doc: "`on`: the session cookie is `Secure` on every answer (else only on requests that came over https; set it behind a TLS proxy)",
  },
  SVC_AUTH_SESSION_IDLE: { default: authDefaults.sessionIdle, doc: "seconds a session lives unused (12 h)" },
  SVC_AUTH_SESSION_MAX: { default: authDefaults.sessionMax, doc: "seconds a session lives at most (7 days)" },
  SVC_AUTH_MFA: {
    default: "off",
    doc: "who must sign in with a second factor: `off`, `admins` or `all` local users; one without a factor is sent to enrol one after the password and can do nothing else; see [Second factors](auth.md#second-factors-an-authenticator-app-recovery-codes)",
  },
  SVC_PUBLIC_URL: {
    shown: "(unset: the address a request came to)",
    doc: "the address people open the service at, `https://harbor.example.com` behind a TLS proxy: passkeys are bound to its host name and accepted from its origin only (plain `http://` on `localhost` only: browsers refuse an IP address such as `127.0.0.1` as a passkey's host); see [Passkeys](auth.md#passkeys)",
  },
  SVC_AUTH_AUDIT_MAX_BYTES: { default: authDefaults.auditMaxBytes, doc: "size of one audit file" },
  SVC_AUTH_AUDIT_FILES: { default: authDefaults.auditFiles, doc: "how many audit files are kept" },
  SVC_AUTH_OIDC_ISSUER: {
    shown: "(required with `oidc`)",
    doc: "the issuer URL (https, or plain http on this host only)",
  },
  SVC_AUTH_OIDC_CLIENT_ID: { shown: "(required with `oidc`)", doc: "the client registered at the provider" },
  SVC_AUTH_OIDC_CLIENT_SECRET: { shown: "(none: a public client)", doc: "its secret (client_secret_basic)" },
  SVC_AUTH_OIDC_REDIRECT_URL: {
    shown: "the request's origin + `/api/auth/oidc/callback`",
    doc: "the callback registered at the provider",
  },
  SVC_AUTH_OIDC_SCOPES: {
    default: DEFAULT_SCOPES,
    doc: "add the scope that brings the groups (`groups` for Dex, Authentik, oidc-provider)",
  },
  SVC_AUTH_OIDC_ROLE_CLAIM: {
    default: DEFAULT_ROLE_CLAIM,
    doc: "the claim (a string or a list) mapped to a role through `SVC_AUTH_ROLE_MAP`",
  },
  SVC_SCANNER: {
    default: "auto",
    doc: "vulnerability scanner: `trivy`, `grype`, or `auto` (`trivy` on PATH, else `grype` on PATH, else Trivy's image as a container); see [Images](images.md)",
  },
  SVC_SCAN_TIMEOUT: {
    default: 600,
    doc: "seconds one scan may take; past it the scanner is killed and the scan fails with `scan_timeout`",
  },
  SVC_COMPOSE_TIMEOUT: {
    default: 15 * 60,
    doc: "seconds one compose run (`up`, `pull`, `down`...) may take; past it compose's processes are stopped (SIGTERM, SIGKILL 5 s later), the stack's lock is released and the request answers 504 `compose_timeout` with compose's output so far",
  },
  SVC_COMPOSE_CONFIG_TIMEOUT: {
    default: 60,
    doc: "the same for compose's `config`, which checks a compose file before anything is written",
  },
  SVC_DOCKER_CLI: {
    shown: "(looked for)",
    doc: "the docker CLI swarm stacks run (`docker stack`); unset: a `docker` on `PATH` that has `stack config`, else `/usr/local/lib/harbormaster/docker/docker` (installed by `scripts/setup.sh`); see [Swarm stacks](swarm.md#swarm-stacks)",
  },
  SVC_BIND_ROOTS: {
    doc: "comma-separated absolute host folders a stack may mount or read (bind sources, local volumes bound to a device, `secrets`/`configs` files, `env_file`, build contexts) besides its own folder `<SVC_DATA>/stacks/<name>/`; `/` allows any. A file or a socket (`/var/run/docker.sock` for Traefik, Dozzle, Watchtower) allows exactly that path, not its folder. Anything else is refused with 400 `host_path_refused`",
  },
  SVC_SECRET_KEYS: {
    default: ["*PASSWORD*", "*SECRET*", "*TOKEN*", "*KEY*"],
    doc: "comma-separated name patterns (`*` any run of characters, case-insensitive) of environment keys that an adoption flags secret",
  },
  SVC_SECRET_KEY: {
    shown: "(none)",
    doc: "the secret key that seals the secrets the data directory keeps (stack environments, run files, versions, git credentials, the cluster token, restic passwords, alert channels): 64 hex digits or 32 bytes in base64; outranks the credential and the key file; see [Secrets at rest](operations.md#secrets-at-rest)",
  },
  SVC_SECRET_KEY_FILE: {
    shown: "`<SVC_DATA>.key` (made on first start)",
    doc: "the key file (0600, never inside the data directory) used when neither SVC_SECRET_KEY nor the systemd credential `secret-key` (`$CREDENTIALS_DIRECTORY/secret-key`) gives the key",
  },
  SVC_SECRET_KEY_PREVIOUS: {
    shown: "(none)",
    doc: "comma-separated keys of a rotation: files sealed with one are read and sealed again with the current key at start (also the credential `secret-key-previous` and the file `<key file>.previous`)",
  },
  SVC_INSECURE_REGISTRIES: {
    doc: "comma-separated registries (`host:port`) the update check speaks plain http to, among those not kept as [private registries](registries.md) (a kept one's own `insecure` counts); loopback registries always get http",
  },
  SVC_UPDATE_INTERVAL: {
    default: 0,
    shown: "`0` (off)",
    doc: "seconds between periodic update checks of every image that came from a registry; also the schedule of an update policy that names none",
  },
  SVC_UPDATE_WATCH: {
    default: 60,
    doc: "seconds a guarded update watches the stack's health when the request names no `watch`",
  },
  SVC_GIT_MAX_FILE_BYTES: {
    default: 1024 * 1024,
    shown: "`1048576` (1 MiB)",
    doc: "the largest file a git stack's sync reads out of its repository; a larger one refuses the commit; see [Git stacks](git-stacks.md)",
  },
  SVC_GIT_MAX_FETCH_BYTES: {
    default: 256 * 1024 * 1024,
    shown: "`268435456` (256 MiB)",
    doc: "the largest pack a git stack's fetch may write: the bound when a git server ignores the partial fetch that leaves files over `SVC_GIT_MAX_FILE_BYTES` out; past it git is stopped and the commit refused",
  },
  SVC_NOTIFY_URLS: {
    doc: "comma-separated notification addresses: `https://…` (JSON webhook), `ntfy+https://host/topic` or `ntfy://host/topic` (ntfy's plain publish)",
  },
  SVC_ALERT_POLL: {
    default: 15,
    doc: "seconds between the alert rules' looks at what has no event: stacks' health, overdue backups, swarm replicas, nodes (probed), disks; see [Alerts](alerts.md)",
  },
  SVC_ALERT_API_URLS: {
    doc: "where alert channels reach a service's own API, `kind=url` comma-separated (`telegram=http://10.0.0.2:8081` for a self-hosted Bot API server or a relay); by default the services' public APIs (discord, slack, telegram, pushover)",
  },
  SVC_METRICS: {
    default: "off",
    doc: "`on` routes `/metrics` and `/metrics/targets` (404 otherwise); see [Metrics](metrics.md)",
  },
  SVC_METRICS_TOKEN: { doc: "when set, both metrics routes want `Authorization: Bearer <token>` (401 otherwise)" },
  SVC_RESPONSE_DRIFT_LOG: {
    doc: "a file to which every answer that does not fit its route's response schema in `/openapi` is appended, one line each (development and tests)",
  },
  SVC_METRICS_CONTAINERS: {
    default: "off",
    doc: "`on` adds per-container gauges (CPU, memory, network, block I/O, PIDs) to `/metrics`; see [Resource use](metrics.md#resource-use-stats)",
  },
  SVC_STATS_INTERVAL: { default: 5, doc: "seconds between two stats rounds of every running container" },
  SVC_STATS_HISTORY: {
    default: "on",
    doc: "`on` keeps the last hour of stats in memory (25.3 KiB per container at 5 s, 32 MiB at most) and samples all the time; `off` samples only while someone asks or listens",
  },
  SVC_RESTIC: { default: "restic", doc: "the restic program backups run; see [Backups](backups.md)" },
  SVC_TTS_ENGINE: {
    default: "auto",
    doc: "the speech back end (the name is kept from earlier releases; it has nothing to do with the Docker engine): `offline` (flite for English, espeak-ng for the rest), `espeak` (espeak-ng for every language), `edge` (online Microsoft Edge voices), or `auto` (Edge, falling back to `offline`); see [Text-to-speech](speech.md)",
  },
  SVC_TTS_TIMEOUT_MS: {
    default: 30_000,
    doc: "deadline of one offline synthesis, plus `SVC_TTS_TIMEOUT_MS_PER_CHAR` for each character (504 `tts_timeout` past it)",
  },
  SVC_TTS_TIMEOUT_MS_PER_CHAR: { default: 4, doc: "what each character adds to that deadline" },
  SVC_TTS_WORKER_MEMORY_MB: { default: 4096, doc: "address-space cap of each speech worker process" },
  SVC_TTS_MAX_CHARS: {
    default: 50_000,
    doc: "longest `text` accepted by `POST /api/synthesize`, in characters (400 `text_too_long` above it)",
  },
  SVC_TTS_CONCURRENCY: {
    default: 2,
    doc: "syntheses running at once; four times as many wait in line, more get 503 `tts_busy`",
  },
  SVC_TTS_VOICE: {
    default: "en-US-EmmaMultilingualNeural",
    doc: "Edge voice when the front matter names none; its locale is espeak-ng's language unless `lang` is given",
  },
  SVC_TTS_EDGE_TIMEOUT_MS: {
    default: 5000,
    doc: "longest wait for the Edge service's next message (connecting included) before it counts as failed",
  },
} as const satisfies Record<string, Variable>

export type VariableName = keyof typeof VARIABLES
/** The variables whose default is a number. */
export type NumberVariable = {
  [K in VariableName]: (typeof VARIABLES)[K] extends { default: number } ? K : never
}[VariableName]

/** The default config.ts uses for a variable. */
export function defaultOf<N extends VariableName>(
  name: N,
): (typeof VARIABLES)[N] extends { default: infer D } ? D : undefined {
  return (VARIABLES[name] as Variable).default as never
}
