// Written by scripts/catalog.ts from lib/catalog/shipped/: do not edit by hand.
// Template id → its folder's files (relative path → text).
export const shipped: Record<string, Record<string, string>> = {
  actual: {
    "compose.yaml":
      'services:\n  actual:\n    image: actualbudget/actual-server:24.12.0\n    restart: unless-stopped\n    ports:\n      - "${PORT}:5006"\n    volumes:\n      - data:/data\n    healthcheck:\n      test: ["CMD-SHELL", "node src/scripts/health-check.js"]\n      interval: 30s\n      timeout: 10s\n      retries: 5\n      start_period: 20s\nvolumes:\n  data:\n',
    "logo.svg":
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" role="img" aria-label="Actual Budget"><rect width="64" height="64" rx="14" fill="#175ddc"/><text x="32" y="41" font-family="system-ui, sans-serif" font-size="24" font-weight="700" text-anchor="middle" fill="#fff">AC</text></svg>\n',
    "template.yaml":
      'title: Actual Budget\ndescription: Envelope budgeting that is fast and private, synced between your devices.\ncategories: [finance, productivity]\nlogo: logo.svg\nversion: "24.12.0"\nnote: |\n  Open http://<this host>:${PORT} and set the server password. Browsers need HTTPS for it beyond localhost: put it behind a reverse proxy.\nvariables:\n  - key: PORT\n    label: Web port\n    type: port\n    default: "5006"\n',
  },
  "adguard-home": {
    "compose.yaml":
      'services:\n  adguardhome:\n    image: adguard/adguardhome:v0.107.55\n    restart: unless-stopped\n    ports:\n      - "${DNS_PORT}:53/tcp"\n      - "${DNS_PORT}:53/udp"\n      - "${SETUP_PORT}:3000/tcp"\n      - "${WEB_PORT}:80/tcp"\n    volumes:\n      - work:/opt/adguardhome/work\n      - conf:/opt/adguardhome/conf\n    healthcheck:\n      test: ["CMD-SHELL", "wget -q -O /dev/null http://127.0.0.1:3000 || wget -q -O /dev/null http://127.0.0.1:80 || exit 1"]\n      interval: 30s\n      timeout: 10s\n      retries: 5\n      start_period: 30s\nvolumes:\n  work:\n  conf:\n',
    "logo.svg":
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" role="img" aria-label="AdGuard Home"><rect width="64" height="64" rx="14" fill="#00a4dc"/><text x="32" y="41" font-family="system-ui, sans-serif" font-size="24" font-weight="700" text-anchor="middle" fill="#fff">AD</text></svg>\n',
    "template.yaml":
      'title: AdGuard Home\ndescription: A network-wide DNS server that blocks ads and trackers, with encrypted DNS upstreams.\ncategories: [network, dns, privacy]\nlogo: logo.svg\nversion: "0.107.55"\nnote: |\n  Open http://<this host>:${SETUP_PORT} for the first setup (choose port 80 inside the container for its web page, reached at ${WEB_PORT}), then point your devices\' DNS at this host, port ${DNS_PORT}.\nvariables:\n  - key: DNS_PORT\n    label: DNS port\n    type: port\n    default: "5353"\n  - key: SETUP_PORT\n    label: Setup page port\n    type: port\n    default: "3003"\n  - key: WEB_PORT\n    label: Web page port\n    type: port\n    default: "8054"\n',
  },
  caddy: {
    "compose.yaml":
      'services:\n  caddy:\n    image: caddy:2.8.4\n    restart: unless-stopped\n    environment:\n      DOMAIN: ${DOMAIN}\n      UPSTREAM: ${UPSTREAM}\n    ports:\n      - "${HTTP_PORT}:80"\n      - "${HTTPS_PORT}:443"\n    volumes:\n      - ./Caddyfile:/etc/caddy/Caddyfile:ro\n      - data:/data\n      - config:/config\n    healthcheck:\n      test: ["CMD-SHELL", "wget -q -O /dev/null http://127.0.0.1:2019/config/ || exit 1"]\n      interval: 30s\n      timeout: 10s\n      retries: 5\n      start_period: 10s\nvolumes:\n  data:\n  config:\n',
    "files/Caddyfile": "{$DOMAIN} {\n\treverse_proxy {$UPSTREAM}\n}\n",
    "logo.svg":
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" role="img" aria-label="Caddy reverse proxy"><rect width="64" height="64" rx="14" fill="#4250af"/><text x="32" y="41" font-family="system-ui, sans-serif" font-size="24" font-weight="700" text-anchor="middle" fill="#fff">CA</text></svg>\n',
    "template.yaml":
      'title: Caddy reverse proxy\ndescription: A web server and reverse proxy that gets and renews HTTPS certificates by itself.\ncategories: [network, reverse-proxy]\nlogo: logo.svg\nversion: "2.8.4"\nnote: |\n  Caddy answers for ${DOMAIN} on ports ${HTTP_PORT} and ${HTTPS_PORT} and passes requests to ${UPSTREAM}. For a public certificate the domain must point at this host and ports 80 and 443 must reach it. Edit the Caddyfile (a file of the stack) for more sites.\nvariables:\n  - key: DOMAIN\n    label: Domain\n    description: The name Caddy answers for (a public name gets a certificate from Let\'s Encrypt; localhost gets one of Caddy\'s own).\n    default: localhost\n  - key: UPSTREAM\n    label: Upstream\n    description: Where requests go, such as host.docker.internal:8081 or a container reachable from the stack.\n    default: "whoami:80"\n  - key: HTTP_PORT\n    label: HTTP port\n    type: port\n    default: "8080"\n  - key: HTTPS_PORT\n    label: HTTPS port\n    type: port\n    default: "8443"\n',
  },
  forgejo: {
    "compose.yaml":
      'services:\n  forgejo:\n    image: codeberg.org/forgejo/forgejo:9.0.3\n    restart: unless-stopped\n    environment:\n      USER_UID: "1000"\n      USER_GID: "1000"\n    ports:\n      - "${HTTP_PORT}:3000"\n      - "${SSH_PORT}:22"\n    volumes:\n      - data:/data\n    healthcheck:\n      test: ["CMD-SHELL", "wget -q -O /dev/null http://127.0.0.1:3000/api/healthz || exit 1"]\n      interval: 30s\n      timeout: 10s\n      retries: 5\n      start_period: 30s\nvolumes:\n  data:\n',
    "logo.svg":
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" role="img" aria-label="Forgejo"><rect width="64" height="64" rx="14" fill="#609926"/><text x="32" y="41" font-family="system-ui, sans-serif" font-size="24" font-weight="700" text-anchor="middle" fill="#fff">FO</text></svg>\n',
    "template.yaml":
      'title: Forgejo\ndescription: A community-run git forge (repositories, issues, pull requests, actions) with SQLite, one container.\ncategories: [development, git]\nlogo: logo.svg\nversion: "9.0.3"\nnote: |\n  Open http://<this host>:${HTTP_PORT} to finish the installation; the first account made is the admin. Clone over ssh on port ${SSH_PORT}.\nvariables:\n  - key: HTTP_PORT\n    label: Web port\n    type: port\n    default: "3001"\n  - key: SSH_PORT\n    label: SSH port\n    type: port\n    default: "2223"\n',
  },
  freshrss: {
    "compose.yaml":
      'services:\n  freshrss:\n    image: freshrss/freshrss:1.25.0\n    restart: unless-stopped\n    environment:\n      TZ: ${TZ}\n      CRON_MIN: "1,31"\n    ports:\n      - "${PORT}:80"\n    volumes:\n      - data:/var/www/FreshRSS/data\n      - extensions:/var/www/FreshRSS/extensions\n    healthcheck:\n      test: ["CMD-SHELL", "cli/health.php"]\n      interval: 30s\n      timeout: 10s\n      retries: 5\n      start_period: 30s\nvolumes:\n  data:\n  extensions:\n',
    "logo.svg":
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" role="img" aria-label="FreshRSS"><rect width="64" height="64" rx="14" fill="#fb923c"/><text x="32" y="41" font-family="system-ui, sans-serif" font-size="24" font-weight="700" text-anchor="middle" fill="#fff">FR</text></svg>\n',
    "template.yaml":
      'title: FreshRSS\ndescription: A fast feed reader (RSS and Atom) for one person or many, with apps through its API.\ncategories: [reading, news]\nlogo: logo.svg\nversion: "1.25.0"\nnote: |\n  Open http://<this host>:${PORT} to finish the installation (SQLite needs nothing more).\nvariables:\n  - key: PORT\n    label: Web port\n    type: port\n    default: "8085"\n  - key: TZ\n    label: Time zone\n    default: UTC\n',
  },
  gitea: {
    "compose.yaml":
      'services:\n  gitea:\n    image: gitea/gitea:1.22.6\n    restart: unless-stopped\n    environment:\n      USER_UID: "1000"\n      USER_GID: "1000"\n      GITEA__database__DB_TYPE: postgres\n      GITEA__database__HOST: db:5432\n      GITEA__database__NAME: gitea\n      GITEA__database__USER: gitea\n      GITEA__database__PASSWD: ${DB_PASSWORD}\n    ports:\n      - "${HTTP_PORT}:3000"\n      - "${SSH_PORT}:22"\n    volumes:\n      - data:/data\n    depends_on:\n      db:\n        condition: service_healthy\n    healthcheck:\n      test: ["CMD-SHELL", "wget -q -O /dev/null http://127.0.0.1:3000/api/healthz || exit 1"]\n      interval: 30s\n      timeout: 10s\n      retries: 5\n      start_period: 30s\n  db:\n    image: postgres:16.6-alpine\n    restart: unless-stopped\n    environment:\n      POSTGRES_USER: gitea\n      POSTGRES_PASSWORD: ${DB_PASSWORD}\n      POSTGRES_DB: gitea\n    volumes:\n      - db:/var/lib/postgresql/data\n    healthcheck:\n      test: ["CMD-SHELL", "pg_isready -U gitea -d gitea"]\n      interval: 30s\n      timeout: 10s\n      retries: 5\n      start_period: 10s\nvolumes:\n  data:\n  db:\n',
    "logo.svg":
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" role="img" aria-label="Gitea"><rect width="64" height="64" rx="14" fill="#5cdd8b"/><text x="32" y="41" font-family="system-ui, sans-serif" font-size="24" font-weight="700" text-anchor="middle" fill="#fff">GI</text></svg>\n',
    "template.yaml":
      'title: Gitea\ndescription: A git forge with repositories, issues, pull requests, packages and actions, light enough for a small server.\ncategories: [development, git]\nlogo: logo.svg\nversion: "1.22.6"\nnote: |\n  Open http://<this host>:${HTTP_PORT} to finish the installation (its database is set: PostgreSQL); the first account made is the admin. Clone over ssh on port ${SSH_PORT}.\nvariables:\n  - key: HTTP_PORT\n    label: Web port\n    type: port\n    default: "3000"\n  - key: SSH_PORT\n    label: SSH port\n    type: port\n    default: "2222"\n  - key: DB_PASSWORD\n    label: Database password\n    secret: true\n',
  },
  gotify: {
    "compose.yaml":
      'services:\n  gotify:\n    image: gotify/server:2.6.1\n    restart: unless-stopped\n    environment:\n      GOTIFY_DEFAULTUSER_PASS: ${ADMIN_PASSWORD}\n    ports:\n      - "${PORT}:80"\n    volumes:\n      - data:/app/data\n    healthcheck:\n      test: ["CMD-SHELL", "curl -fsS http://127.0.0.1:80/health >/dev/null || exit 1"]\n      interval: 30s\n      timeout: 10s\n      retries: 5\n      start_period: 10s\nvolumes:\n  data:\n',
    "logo.svg":
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" role="img" aria-label="Gotify"><rect width="64" height="64" rx="14" fill="#96060c"/><text x="32" y="41" font-family="system-ui, sans-serif" font-size="24" font-weight="700" text-anchor="middle" fill="#fff">GO</text></svg>\n',
    "template.yaml":
      'title: Gotify\ndescription: A simple server for sending and receiving push messages, with a web page and an Android app.\ncategories: [notifications]\nlogo: logo.svg\nversion: "2.6.1"\nnote: |\n  Open http://<this host>:${PORT} and sign in as admin with the password shown once at install.\nvariables:\n  - key: PORT\n    label: Web port\n    type: port\n    default: "8087"\n  - key: ADMIN_PASSWORD\n    label: Admin password\n    secret: true\n',
  },
  grafana: {
    "compose.yaml":
      'services:\n  grafana:\n    image: grafana/grafana-oss:11.4.0\n    restart: unless-stopped\n    environment:\n      GF_SECURITY_ADMIN_PASSWORD: ${ADMIN_PASSWORD}\n    ports:\n      - "${PORT}:3000"\n    volumes:\n      - data:/var/lib/grafana\n    healthcheck:\n      test: ["CMD-SHELL", "wget -q -O /dev/null http://127.0.0.1:3000/api/health || exit 1"]\n      interval: 30s\n      timeout: 10s\n      retries: 5\n      start_period: 30s\nvolumes:\n  data:\n',
    "logo.svg":
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" role="img" aria-label="Grafana"><rect width="64" height="64" rx="14" fill="#68bc71"/><text x="32" y="41" font-family="system-ui, sans-serif" font-size="24" font-weight="700" text-anchor="middle" fill="#fff">GR</text></svg>\n',
    "template.yaml":
      'title: Grafana\ndescription: Dashboards and alerts over metrics, logs and traces from Prometheus and many other sources.\ncategories: [monitoring, dashboards]\nlogo: logo.svg\nversion: "11.4.0"\nnote: |\n  Open http://<this host>:${PORT} and sign in as admin with the password shown once at install.\nvariables:\n  - key: PORT\n    label: Web port\n    type: port\n    default: "3005"\n  - key: ADMIN_PASSWORD\n    label: Admin password\n    secret: true\n',
  },
  "home-assistant": {
    "compose.yaml":
      'services:\n  homeassistant:\n    image: ghcr.io/home-assistant/home-assistant:2024.12.5\n    restart: unless-stopped\n    environment:\n      TZ: ${TZ}\n    ports:\n      - "${PORT}:8123"\n    volumes:\n      - config:/config\n    healthcheck:\n      test: ["CMD-SHELL", "curl -fsS http://127.0.0.1:8123/manifest.json >/dev/null || exit 1"]\n      interval: 30s\n      timeout: 10s\n      retries: 5\n      start_period: 120s\nvolumes:\n  config:\n',
    "logo.svg":
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" role="img" aria-label="Home Assistant"><rect width="64" height="64" rx="14" fill="#17541f"/><text x="32" y="41" font-family="system-ui, sans-serif" font-size="24" font-weight="700" text-anchor="middle" fill="#fff">HA</text></svg>\n',
    "template.yaml":
      'title: Home Assistant\ndescription: Home automation that puts local control and privacy first, with thousands of integrations.\ncategories: [home-automation]\nlogo: logo.svg\nversion: "2024.12.5"\nnote: |\n  Open http://<this host>:${PORT} and create the owner account. It runs on the stack\'s own network: devices it finds by broadcast (mDNS, UPnP) need network_mode: host, which you can set by editing the compose file.\nvariables:\n  - key: PORT\n    label: Web port\n    type: port\n    default: "8123"\n  - key: TZ\n    label: Time zone\n    default: UTC\n',
  },
  homepage: {
    "compose.yaml":
      'services:\n  homepage:\n    image: ghcr.io/gethomepage/homepage:v0.10.9\n    restart: unless-stopped\n    environment:\n      HOMEPAGE_ALLOWED_HOSTS: ${ALLOWED_HOSTS}\n    ports:\n      - "${PORT}:3000"\n    volumes:\n      - config:/app/config\n    healthcheck:\n      test: ["CMD-SHELL", "wget -q -O /dev/null http://127.0.0.1:3000/api/healthcheck || exit 1"]\n      interval: 30s\n      timeout: 10s\n      retries: 5\n      start_period: 30s\nvolumes:\n  config:\n',
    "logo.svg":
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" role="img" aria-label="Homepage"><rect width="64" height="64" rx="14" fill="#18bcf2"/><text x="32" y="41" font-family="system-ui, sans-serif" font-size="24" font-weight="700" text-anchor="middle" fill="#fff">HO</text></svg>\n',
    "template.yaml":
      'title: Homepage\ndescription: A start page for your services, with widgets for their status, configured in YAML files.\ncategories: [dashboards]\nlogo: logo.svg\nversion: "0.10.9"\nnote: |\n  Open http://<this host>:${PORT}. Its settings are YAML files in the config volume.\nvariables:\n  - key: PORT\n    label: Web port\n    type: port\n    default: "3006"\n  - key: ALLOWED_HOSTS\n    label: Allowed hosts\n    description: The host:port it is reached at (comma separated).\n    default: "localhost:3006"\n',
  },
  immich: {
    "compose.yaml":
      'services:\n  server:\n    image: ghcr.io/immich-app/immich-server:v1.123.0\n    restart: unless-stopped\n    environment:\n      DB_HOSTNAME: database\n      DB_USERNAME: postgres\n      DB_PASSWORD: ${DB_PASSWORD}\n      DB_DATABASE_NAME: immich\n      REDIS_HOSTNAME: redis\n    ports:\n      - "${PORT}:2283"\n    volumes:\n      - upload:/usr/src/app/upload\n    depends_on:\n      redis:\n        condition: service_healthy\n      database:\n        condition: service_healthy\n    healthcheck:\n      test: ["CMD-SHELL", "immich-healthcheck"]\n      interval: 30s\n      timeout: 10s\n      retries: 5\n      start_period: 60s\n  machine-learning:\n    image: ghcr.io/immich-app/immich-machine-learning:v1.123.0\n    restart: unless-stopped\n    volumes:\n      - model-cache:/cache\n    healthcheck:\n      test: ["CMD-SHELL", "python3 /usr/src/app/healthcheck.py"]\n      interval: 30s\n      timeout: 10s\n      retries: 5\n      start_period: 60s\n  redis:\n    image: docker.io/redis:6.2-alpine\n    restart: unless-stopped\n    healthcheck:\n      test: ["CMD-SHELL", "redis-cli ping | grep -q PONG"]\n      interval: 30s\n      timeout: 10s\n      retries: 5\n      start_period: 10s\n  database:\n    image: docker.io/tensorchord/pgvecto-rs:pg14-v0.2.0\n    restart: unless-stopped\n    environment:\n      POSTGRES_PASSWORD: ${DB_PASSWORD}\n      POSTGRES_USER: postgres\n      POSTGRES_DB: immich\n      POSTGRES_INITDB_ARGS: --data-checksums\n    command: ["postgres", "-c", "shared_preload_libraries=vectors.so", "-c", "search_path=\\"$$user\\", public, vectors"]\n    volumes:\n      - database:/var/lib/postgresql/data\n    healthcheck:\n      test: ["CMD-SHELL", "pg_isready -U postgres -d immich"]\n      interval: 30s\n      timeout: 10s\n      retries: 5\n      start_period: 30s\nvolumes:\n  upload:\n  model-cache:\n  database:\n',
    "logo.svg":
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" role="img" aria-label="Immich"><rect width="64" height="64" rx="14" fill="#1976d2"/><text x="32" y="41" font-family="system-ui, sans-serif" font-size="24" font-weight="700" text-anchor="middle" fill="#fff">IM</text></svg>\n',
    "template.yaml":
      'title: Immich\ndescription: A photo and video library with phone backup, faces, maps and search, kept on your own server.\ncategories: [photos, media]\nlogo: logo.svg\nversion: "1.123.0"\nnote: |\n  Open http://<this host>:${PORT}; the first account made is the admin. Phone apps connect to the same address.\nvariables:\n  - key: PORT\n    label: Web port\n    type: port\n    default: "2283"\n  - key: DB_PASSWORD\n    label: Database password\n    secret: true\n',
  },
  jellyfin: {
    "compose.yaml":
      'services:\n  jellyfin:\n    image: jellyfin/jellyfin:10.10.3\n    restart: unless-stopped\n    ports:\n      - "${PORT}:8096"\n    volumes:\n      - config:/config\n      - cache:/cache\n      - media:/media\n    healthcheck:\n      test: ["CMD-SHELL", "curl -fsS http://127.0.0.1:8096/health || exit 1"]\n      interval: 30s\n      timeout: 10s\n      retries: 5\n      start_period: 60s\nvolumes:\n  config:\n  cache:\n  media:\n',
    "logo.svg":
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" role="img" aria-label="Jellyfin"><rect width="64" height="64" rx="14" fill="#1f8dd6"/><text x="32" y="41" font-family="system-ui, sans-serif" font-size="24" font-weight="700" text-anchor="middle" fill="#fff">JE</text></svg>\n',
    "template.yaml":
      'title: Jellyfin\ndescription: A media server for films, series, music and photos, streamed to browsers, phones and TVs.\ncategories: [media]\nlogo: logo.svg\nversion: "10.10.3"\nnote: |\n  Open http://<this host>:${PORT} and follow the setup wizard. Media goes into the media volume (copy it in, or bind your library by editing the compose file under a folder of SVC_BIND_ROOTS).\nvariables:\n  - key: PORT\n    label: Web port\n    type: port\n    default: "8096"\n',
  },
  linkding: {
    "compose.yaml":
      'services:\n  linkding:\n    image: sissbruecker/linkding:1.36.0\n    restart: unless-stopped\n    environment:\n      LD_SUPERUSER_NAME: ${SUPERUSER}\n      LD_SUPERUSER_PASSWORD: ${SUPERUSER_PASSWORD}\n    ports:\n      - "${PORT}:9090"\n    volumes:\n      - data:/etc/linkding/data\n    healthcheck:\n      test: ["CMD-SHELL", "curl -fsS http://127.0.0.1:9090/health >/dev/null || exit 1"]\n      interval: 30s\n      timeout: 10s\n      retries: 5\n      start_period: 30s\nvolumes:\n  data:\n',
    "logo.svg":
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" role="img" aria-label="linkding"><rect width="64" height="64" rx="14" fill="#f15833"/><text x="32" y="41" font-family="system-ui, sans-serif" font-size="24" font-weight="700" text-anchor="middle" fill="#fff">LI</text></svg>\n',
    "template.yaml":
      'title: linkding\ndescription: A minimal bookmark manager with tags, search, archiving and browser extensions.\ncategories: [productivity, bookmarks]\nlogo: logo.svg\nversion: "1.36.0"\nnote: |\n  Open http://<this host>:${PORT} and sign in as ${SUPERUSER} with the password shown once at install.\nvariables:\n  - key: PORT\n    label: Web port\n    type: port\n    default: "9091"\n  - key: SUPERUSER\n    label: Admin user\n    default: admin\n  - key: SUPERUSER_PASSWORD\n    label: Admin password\n    secret: true\n',
  },
  "mariadb-adminer": {
    "compose.yaml":
      'services:\n  mariadb:\n    image: mariadb:11.4.4\n    restart: unless-stopped\n    environment:\n      MARIADB_ROOT_PASSWORD: ${ROOT_PASSWORD}\n    ports:\n      - "${DB_PORT}:3306"\n    volumes:\n      - db:/var/lib/mysql\n    healthcheck:\n      test: ["CMD", "healthcheck.sh", "--connect", "--innodb_initialized"]\n      interval: 30s\n      timeout: 10s\n      retries: 5\n      start_period: 20s\n  adminer:\n    image: adminer:4.8.1\n    restart: unless-stopped\n    ports:\n      - "${ADMINER_PORT}:8080"\n    healthcheck:\n      test: ["CMD", "php", "-r", "exit(@fsockopen(\'127.0.0.1\', 8080) ? 0 : 1);"]\n      interval: 30s\n      timeout: 10s\n      retries: 5\n      start_period: 10s\nvolumes:\n  db:\n',
    "logo.svg":
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" role="img" aria-label="MariaDB with Adminer"><rect width="64" height="64" rx="14" fill="#336791"/><text x="32" y="41" font-family="system-ui, sans-serif" font-size="24" font-weight="700" text-anchor="middle" fill="#fff">MA</text></svg>\n',
    "template.yaml":
      'title: MariaDB with Adminer\ndescription: The MariaDB database and Adminer, a one-page web tool to browse and edit it.\ncategories: [database, development]\nlogo: logo.svg\nversion: "11.4.4"\nnote: |\n  Adminer is at http://<this host>:${ADMINER_PORT}: server "mariadb", user root and the root password shown once. MariaDB listens on port ${DB_PORT}.\nvariables:\n  - key: DB_PORT\n    label: MariaDB port\n    type: port\n    default: "3306"\n  - key: ADMINER_PORT\n    label: Adminer port\n    type: port\n    default: "8083"\n  - key: ROOT_PASSWORD\n    label: Root password\n    secret: true\n',
  },
  memos: {
    "compose.yaml":
      'services:\n  memos:\n    image: neosmemo/memos:0.23.0\n    restart: unless-stopped\n    ports:\n      - "${PORT}:5230"\n    volumes:\n      - data:/var/opt/memos\n    healthcheck:\n      test: ["CMD-SHELL", "wget -q -O /dev/null http://127.0.0.1:5230/healthz || exit 1"]\n      interval: 30s\n      timeout: 10s\n      retries: 5\n      start_period: 30s\nvolumes:\n  data:\n',
    "logo.svg":
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" role="img" aria-label="Memos"><rect width="64" height="64" rx="14" fill="#c0765a"/><text x="32" y="41" font-family="system-ui, sans-serif" font-size="24" font-weight="700" text-anchor="middle" fill="#fff">ME</text></svg>\n',
    "template.yaml":
      'title: Memos\ndescription: A lightweight note-taking service for quick thoughts, in Markdown, with tags and sharing.\ncategories: [productivity, notes]\nlogo: logo.svg\nversion: "0.23.0"\nnote: |\n  Open http://<this host>:${PORT}; the first account made is the admin.\nvariables:\n  - key: PORT\n    label: Web port\n    type: port\n    default: "5230"\n',
  },
  minio: {
    "compose.yaml":
      'services:\n  minio:\n    image: minio/minio:RELEASE.2024-12-18T13-15-44Z\n    restart: unless-stopped\n    command: ["server", "/data", "--console-address", ":9001"]\n    environment:\n      MINIO_ROOT_USER: ${ROOT_USER}\n      MINIO_ROOT_PASSWORD: ${ROOT_PASSWORD}\n    ports:\n      - "${API_PORT}:9000"\n      - "${CONSOLE_PORT}:9001"\n    volumes:\n      - data:/data\n    healthcheck:\n      test: ["CMD", "mc", "ready", "local"]\n      interval: 30s\n      timeout: 10s\n      retries: 5\n      start_period: 10s\nvolumes:\n  data:\n',
    "logo.svg":
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" role="img" aria-label="MinIO"><rect width="64" height="64" rx="14" fill="#0082c9"/><text x="32" y="41" font-family="system-ui, sans-serif" font-size="24" font-weight="700" text-anchor="middle" fill="#fff">MI</text></svg>\n',
    "template.yaml":
      'title: MinIO\ndescription: Object storage with the S3 API, for backups, media and apps that speak S3.\ncategories: [storage]\nlogo: logo.svg\nversion: "RELEASE.2024-12-18T13-15-44Z"\nnote: |\n  The S3 API is at http://<this host>:${API_PORT}; the console at http://<this host>:${CONSOLE_PORT}, signed in as ${ROOT_USER} with the password shown once at install.\nvariables:\n  - key: API_PORT\n    label: S3 API port\n    type: port\n    default: "9000"\n  - key: CONSOLE_PORT\n    label: Console port\n    type: port\n    default: "9001"\n  - key: ROOT_USER\n    label: Root user\n    default: minioadmin\n  - key: ROOT_PASSWORD\n    label: Root password\n    secret: true\n',
  },
  mosquitto: {
    "compose.yaml":
      'services:\n  mosquitto:\n    image: eclipse-mosquitto:2.0.20\n    restart: unless-stopped\n    ports:\n      - "${PORT}:1883"\n    volumes:\n      - ./mosquitto.conf:/mosquitto/config/mosquitto.conf:ro\n      - data:/mosquitto/data\n    healthcheck:\n      test: ["CMD", "mosquitto_sub", "-t", "$$SYS/broker/uptime", "-C", "1", "-W", "3"]\n      interval: 30s\n      timeout: 10s\n      retries: 5\n      start_period: 10s\nvolumes:\n  data:\n',
    "files/mosquitto.conf":
      "listener 1883\nallow_anonymous true\npersistence true\npersistence_location /mosquitto/data/\n",
    "logo.svg":
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" role="img" aria-label="Mosquitto MQTT broker"><rect width="64" height="64" rx="14" fill="#0891d1"/><text x="32" y="41" font-family="system-ui, sans-serif" font-size="24" font-weight="700" text-anchor="middle" fill="#fff">MO</text></svg>\n',
    "template.yaml":
      'title: Mosquitto MQTT broker\ndescription: A lightweight MQTT broker, the message bus of many home-automation setups.\ncategories: [home-automation, messaging]\nlogo: logo.svg\nversion: "2.0.20"\nnote: |\n  Clients connect to this host on port ${PORT}. Anonymous clients are allowed on the stack\'s config (mosquitto.conf, a file of the stack): add a password file before exposing it.\nvariables:\n  - key: PORT\n    label: MQTT port\n    type: port\n    default: "1883"\n',
  },
  navidrome: {
    "compose.yaml":
      'services:\n  navidrome:\n    image: deluan/navidrome:0.53.3\n    restart: unless-stopped\n    environment:\n      ND_SCANSCHEDULE: ${SCAN_SCHEDULE}\n    ports:\n      - "${PORT}:4533"\n    volumes:\n      - data:/data\n      - music:/music:ro\n    healthcheck:\n      test: ["CMD-SHELL", "wget -q -O /dev/null http://127.0.0.1:4533/ping || exit 1"]\n      interval: 30s\n      timeout: 10s\n      retries: 5\n      start_period: 30s\nvolumes:\n  data:\n  music:\n',
    "logo.svg":
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" role="img" aria-label="Navidrome"><rect width="64" height="64" rx="14" fill="#0062a3"/><text x="32" y="41" font-family="system-ui, sans-serif" font-size="24" font-weight="700" text-anchor="middle" fill="#fff">NA</text></svg>\n',
    "template.yaml":
      'title: Navidrome\ndescription: A music server and streamer compatible with Subsonic apps, for your own collection.\ncategories: [media, music]\nlogo: logo.svg\nversion: "0.53.3"\nnote: |\n  Open http://<this host>:${PORT} and create the admin account. Put music into the music volume.\nvariables:\n  - key: PORT\n    label: Web port\n    type: port\n    default: "4533"\n  - key: SCAN_SCHEDULE\n    label: Library scan\n    choices: [1h, 6h, 24h]\n    default: 1h\n',
  },
  nextcloud: {
    "compose.yaml":
      'services:\n  app:\n    image: nextcloud:30.0.4-apache\n    restart: unless-stopped\n    environment:\n      MYSQL_HOST: db\n      MYSQL_DATABASE: nextcloud\n      MYSQL_USER: nextcloud\n      MYSQL_PASSWORD: ${DB_PASSWORD}\n      REDIS_HOST: redis\n      NEXTCLOUD_ADMIN_USER: ${ADMIN_USER}\n      NEXTCLOUD_ADMIN_PASSWORD: ${ADMIN_PASSWORD}\n      NEXTCLOUD_TRUSTED_DOMAINS: ${TRUSTED_DOMAINS}\n    ports:\n      - "${PORT}:80"\n    volumes:\n      - html:/var/www/html\n    depends_on:\n      db:\n        condition: service_healthy\n      redis:\n        condition: service_healthy\n    healthcheck:\n      test: ["CMD-SHELL", "curl -fsS http://127.0.0.1/status.php >/dev/null || exit 1"]\n      interval: 30s\n      timeout: 10s\n      retries: 5\n      start_period: 120s\n  db:\n    image: mariadb:11.4.4\n    restart: unless-stopped\n    command: ["--transaction-isolation=READ-COMMITTED"]\n    environment:\n      MARIADB_RANDOM_ROOT_PASSWORD: "1"\n      MARIADB_DATABASE: nextcloud\n      MARIADB_USER: nextcloud\n      MARIADB_PASSWORD: ${DB_PASSWORD}\n    volumes:\n      - db:/var/lib/mysql\n    healthcheck:\n      test: ["CMD", "healthcheck.sh", "--connect", "--innodb_initialized"]\n      interval: 30s\n      timeout: 10s\n      retries: 5\n      start_period: 20s\n  redis:\n    image: redis:7.4.1-alpine\n    restart: unless-stopped\n    healthcheck:\n      test: ["CMD-SHELL", "redis-cli ping | grep -q PONG"]\n      interval: 30s\n      timeout: 10s\n      retries: 5\n      start_period: 10s\nvolumes:\n  html:\n  db:\n',
    "logo.svg":
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" role="img" aria-label="Nextcloud"><rect width="64" height="64" rx="14" fill="#f46800"/><text x="32" y="41" font-family="system-ui, sans-serif" font-size="24" font-weight="700" text-anchor="middle" fill="#fff">NE</text></svg>\n',
    "template.yaml":
      'title: Nextcloud\ndescription: Files, calendars, contacts and office documents in sync across your devices, on your own server.\ncategories: [files, productivity]\nlogo: logo.svg\nversion: "30.0.4"\nnote: |\n  Open http://<this host>:${PORT} and sign in as ${ADMIN_USER} with the password shown once at install. Add the address you reach it at to its trusted domains (TRUSTED_DOMAINS).\nvariables:\n  - key: PORT\n    label: Web port\n    type: port\n    default: "8084"\n  - key: TRUSTED_DOMAINS\n    label: Trusted domains\n    description: The names it answers to, separated by spaces.\n    default: localhost\n  - key: ADMIN_USER\n    label: Admin user\n    default: admin\n  - key: ADMIN_PASSWORD\n    label: Admin password\n    secret: true\n  - key: DB_PASSWORD\n    label: Database password\n    secret: true\n',
  },
  "nginx-proxy-manager": {
    "compose.yaml":
      'services:\n  app:\n    image: jc21/nginx-proxy-manager:2.12.1\n    restart: unless-stopped\n    ports:\n      - "${HTTP_PORT}:80"\n      - "${HTTPS_PORT}:443"\n      - "${ADMIN_PORT}:81"\n    volumes:\n      - data:/data\n      - letsencrypt:/etc/letsencrypt\n    healthcheck:\n      test: ["CMD", "/usr/bin/check-health"]\n      interval: 30s\n      timeout: 10s\n      retries: 5\n      start_period: 60s\nvolumes:\n  data:\n  letsencrypt:\n',
    "logo.svg":
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" role="img" aria-label="Nginx Proxy Manager"><rect width="64" height="64" rx="14" fill="#e6522c"/><text x="32" y="41" font-family="system-ui, sans-serif" font-size="24" font-weight="700" text-anchor="middle" fill="#fff">NP</text></svg>\n',
    "template.yaml":
      'title: Nginx Proxy Manager\ndescription: A reverse proxy with a web interface for hosts, redirects, streams and free SSL certificates.\ncategories: [network, reverse-proxy]\nlogo: logo.svg\nversion: "2.12.1"\nnote: |\n  Open the admin page at http://<this host>:${ADMIN_PORT} and sign in with admin@example.com / changeme, then change both at once.\nvariables:\n  - key: HTTP_PORT\n    label: HTTP port\n    type: port\n    default: "8082"\n  - key: HTTPS_PORT\n    label: HTTPS port\n    type: port\n    default: "8444"\n  - key: ADMIN_PORT\n    label: Admin page port\n    type: port\n    default: "8181"\n',
  },
  "node-red": {
    "compose.yaml":
      'services:\n  node-red:\n    image: nodered/node-red:4.0.8\n    restart: unless-stopped\n    environment:\n      TZ: ${TZ}\n    ports:\n      - "${PORT}:1880"\n    volumes:\n      - data:/data\n    healthcheck:\n      test: ["CMD-SHELL", "curl -fsS http://127.0.0.1:1880 >/dev/null || exit 1"]\n      interval: 30s\n      timeout: 10s\n      retries: 5\n      start_period: 30s\nvolumes:\n  data:\n',
    "logo.svg":
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" role="img" aria-label="Node-RED"><rect width="64" height="64" rx="14" fill="#0b3e6b"/><text x="32" y="41" font-family="system-ui, sans-serif" font-size="24" font-weight="700" text-anchor="middle" fill="#fff">NR</text></svg>\n',
    "template.yaml":
      'title: Node-RED\ndescription: Flow-based programming in the browser for wiring devices, APIs and services together.\ncategories: [home-automation, development]\nlogo: logo.svg\nversion: "4.0.8"\nnote: |\n  Open http://<this host>:${PORT}. Its editor has no password until you set adminAuth in settings.js (in the data volume): do that before exposing it.\nvariables:\n  - key: PORT\n    label: Web port\n    type: port\n    default: "1880"\n  - key: TZ\n    label: Time zone\n    default: UTC\n',
  },
  ntfy: {
    "compose.yaml":
      'services:\n  ntfy:\n    image: binwiederhier/ntfy:v2.11.0\n    restart: unless-stopped\n    command: ["serve"]\n    environment:\n      TZ: ${TZ}\n      NTFY_BASE_URL: ${BASE_URL}\n      NTFY_CACHE_FILE: /var/cache/ntfy/cache.db\n      NTFY_ATTACHMENT_CACHE_DIR: /var/cache/ntfy/attachments\n    ports:\n      - "${PORT}:80"\n    volumes:\n      - cache:/var/cache/ntfy\n    healthcheck:\n      test: ["CMD-SHELL", "wget -q -O - http://127.0.0.1:80/v1/health | grep -q true || exit 1"]\n      interval: 30s\n      timeout: 10s\n      retries: 5\n      start_period: 40s\nvolumes:\n  cache:\n',
    "logo.svg":
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" role="img" aria-label="ntfy"><rect width="64" height="64" rx="14" fill="#2b2b2b"/><text x="32" y="41" font-family="system-ui, sans-serif" font-size="24" font-weight="700" text-anchor="middle" fill="#fff">nt</text></svg>\n',
    "template.yaml":
      'title: ntfy\ndescription: Push notifications to your phone or desktop from any script, with a simple HTTP publish.\ncategories: [notifications]\nlogo: logo.svg\nversion: "2.11.0"\nnote: |\n  Publish with: curl -d "hello" http://<this host>:${PORT}/<topic>. Set BASE_URL to its public address for phone apps.\nvariables:\n  - key: PORT\n    label: Web port\n    type: port\n    default: "8086"\n  - key: BASE_URL\n    label: Public URL\n    default: "http://localhost:8086"\n  - key: TZ\n    label: Time zone\n    default: UTC\n',
  },
  "paperless-ngx": {
    "compose.yaml":
      'services:\n  webserver:\n    image: ghcr.io/paperless-ngx/paperless-ngx:2.13.5\n    restart: unless-stopped\n    environment:\n      PAPERLESS_REDIS: redis://broker:6379\n      PAPERLESS_DBHOST: db\n      PAPERLESS_DBPASS: ${DB_PASSWORD}\n      PAPERLESS_SECRET_KEY: ${SECRET_KEY}\n      PAPERLESS_ADMIN_USER: ${ADMIN_USER}\n      PAPERLESS_ADMIN_PASSWORD: ${ADMIN_PASSWORD}\n      PAPERLESS_OCR_LANGUAGE: ${OCR_LANGUAGE}\n    ports:\n      - "${PORT}:8000"\n    volumes:\n      - data:/usr/src/paperless/data\n      - media:/usr/src/paperless/media\n      - consume:/usr/src/paperless/consume\n    depends_on:\n      db:\n        condition: service_healthy\n      broker:\n        condition: service_healthy\n    healthcheck:\n      test: ["CMD-SHELL", "curl -fsS --max-time 2 http://127.0.0.1:8000 >/dev/null || exit 1"]\n      interval: 30s\n      timeout: 10s\n      retries: 5\n      start_period: 90s\n  broker:\n    image: redis:7.4.1-alpine\n    restart: unless-stopped\n    volumes:\n      - redis:/data\n    healthcheck:\n      test: ["CMD-SHELL", "redis-cli ping | grep -q PONG"]\n      interval: 30s\n      timeout: 10s\n      retries: 5\n      start_period: 10s\n  db:\n    image: postgres:16.6-alpine\n    restart: unless-stopped\n    environment:\n      POSTGRES_DB: paperless\n      POSTGRES_USER: paperless\n      POSTGRES_PASSWORD: ${DB_PASSWORD}\n    volumes:\n      - db:/var/lib/postgresql/data\n    healthcheck:\n      test: ["CMD-SHELL", "pg_isready -U paperless -d paperless"]\n      interval: 30s\n      timeout: 10s\n      retries: 5\n      start_period: 10s\nvolumes:\n  data:\n  media:\n  consume:\n  redis:\n  db:\n',
    "logo.svg":
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" role="img" aria-label="Paperless-ngx"><rect width="64" height="64" rx="14" fill="#6b46c1"/><text x="32" y="41" font-family="system-ui, sans-serif" font-size="24" font-weight="700" text-anchor="middle" fill="#fff">PN</text></svg>\n',
    "template.yaml":
      'title: Paperless-ngx\ndescription: A document archive that scans, reads (OCR), tags and indexes your paper so you can find it again.\ncategories: [documents, productivity]\nlogo: logo.svg\nversion: "2.13.5"\nnote: |\n  Open http://<this host>:${PORT} and sign in as ${ADMIN_USER} with the password shown once at install. Documents dropped into the consume volume are imported.\nvariables:\n  - key: PORT\n    label: Web port\n    type: port\n    default: "8000"\n  - key: ADMIN_USER\n    label: Admin user\n    default: admin\n  - key: ADMIN_PASSWORD\n    label: Admin password\n    secret: true\n  - key: OCR_LANGUAGE\n    label: OCR language\n    choices:\n      - {value: eng, label: English}\n      - {value: deu, label: German}\n      - {value: fra, label: French}\n      - {value: spa, label: Spanish}\n      - {value: ita, label: Italian}\n      - {value: nld, label: Dutch}\n    default: eng\n  - key: SECRET_KEY\n    label: Session secret\n    secret: true\n  - key: DB_PASSWORD\n    label: Database password\n    secret: true\n',
  },
  pihole: {
    "compose.yaml":
      'services:\n  pihole:\n    image: pihole/pihole:2024.07.0\n    restart: unless-stopped\n    environment:\n      TZ: ${TZ}\n      WEBPASSWORD: ${WEBPASSWORD}\n    ports:\n      - "${DNS_PORT}:53/tcp"\n      - "${DNS_PORT}:53/udp"\n      - "${WEB_PORT}:80/tcp"\n    volumes:\n      - etc-pihole:/etc/pihole\n      - etc-dnsmasq:/etc/dnsmasq.d\n    healthcheck:\n      test: ["CMD-SHELL", "dig +short +norecurse +retry=0 @127.0.0.1 pi.hole || exit 1"]\n      interval: 30s\n      timeout: 10s\n      retries: 5\n      start_period: 30s\nvolumes:\n  etc-pihole:\n  etc-dnsmasq:\n',
    "logo.svg":
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" role="img" aria-label="Pi-hole"><rect width="64" height="64" rx="14" fill="#317f6f"/><text x="32" y="41" font-family="system-ui, sans-serif" font-size="24" font-weight="700" text-anchor="middle" fill="#fff">PH</text></svg>\n',
    "template.yaml":
      'title: Pi-hole\ndescription: A DNS server for your network that blocks ads and trackers for every device that uses it.\ncategories: [network, dns, privacy]\nlogo: logo.svg\nversion: "2024.07.0"\nnote: |\n  Point your devices\' (or your router\'s) DNS at this host, port ${DNS_PORT}. The admin page is http://<this host>:${WEB_PORT}/admin, opened with the password shown once at install.\nvariables:\n  - key: DNS_PORT\n    label: DNS port\n    description: 53 for devices to use it; the host\'s own resolver may hold it already.\n    type: port\n    default: "53"\n  - key: WEB_PORT\n    label: Admin page port\n    type: port\n    default: "8053"\n  - key: TZ\n    label: Time zone\n    default: UTC\n  - key: WEBPASSWORD\n    label: Admin password\n    secret: true\n',
  },
  "postgres-pgadmin": {
    "compose.yaml":
      'services:\n  postgres:\n    image: postgres:17.2\n    restart: unless-stopped\n    environment:\n      POSTGRES_PASSWORD: ${POSTGRES_PASSWORD}\n    ports:\n      - "${DB_PORT}:5432"\n    volumes:\n      - db:/var/lib/postgresql/data\n    healthcheck:\n      test: ["CMD-SHELL", "pg_isready -U postgres"]\n      interval: 30s\n      timeout: 10s\n      retries: 5\n      start_period: 10s\n  pgadmin:\n    image: dpage/pgadmin4:8.14\n    restart: unless-stopped\n    environment:\n      PGADMIN_DEFAULT_EMAIL: ${PGADMIN_EMAIL}\n      PGADMIN_DEFAULT_PASSWORD: ${PGADMIN_PASSWORD}\n    ports:\n      - "${PGADMIN_PORT}:80"\n    volumes:\n      - pgadmin:/var/lib/pgadmin\n    healthcheck:\n      test: ["CMD-SHELL", "wget -q -O /dev/null http://127.0.0.1:80/misc/ping || exit 1"]\n      interval: 30s\n      timeout: 10s\n      retries: 5\n      start_period: 60s\nvolumes:\n  db:\n  pgadmin:\n',
    "logo.svg":
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" role="img" aria-label="PostgreSQL with pgAdmin"><rect width="64" height="64" rx="14" fill="#c72e49"/><text x="32" y="41" font-family="system-ui, sans-serif" font-size="24" font-weight="700" text-anchor="middle" fill="#fff">PO</text></svg>\n',
    "template.yaml":
      'title: PostgreSQL with pgAdmin\ndescription: The PostgreSQL database and pgAdmin, its web administration tool, ready to connect to each other.\ncategories: [database, development]\nlogo: logo.svg\nversion: "17.2"\nnote: |\n  pgAdmin is at http://<this host>:${PGADMIN_PORT}, signed in as ${PGADMIN_EMAIL} with the password shown once. Add a server with host "postgres", user postgres and the database password. PostgreSQL itself listens on port ${DB_PORT}.\nvariables:\n  - key: DB_PORT\n    label: PostgreSQL port\n    type: port\n    default: "5432"\n  - key: PGADMIN_PORT\n    label: pgAdmin port\n    type: port\n    default: "5050"\n  - key: PGADMIN_EMAIL\n    label: pgAdmin sign-in e-mail\n    default: admin@example.com\n  - key: POSTGRES_PASSWORD\n    label: Database password (user postgres)\n    secret: true\n  - key: PGADMIN_PASSWORD\n    label: pgAdmin password\n    secret: true\n',
  },
  prometheus: {
    "compose.yaml":
      'services:\n  prometheus:\n    image: prom/prometheus:v3.0.1\n    restart: unless-stopped\n    command:\n      - --config.file=/etc/prometheus/prometheus.yml\n      - --storage.tsdb.path=/prometheus\n      - --storage.tsdb.retention.time=${RETENTION}\n    ports:\n      - "${PORT}:9090"\n    volumes:\n      - ./prometheus.yml:/etc/prometheus/prometheus.yml:ro\n      - data:/prometheus\n    healthcheck:\n      test: ["CMD-SHELL", "wget -q -O /dev/null http://127.0.0.1:9090/-/healthy || exit 1"]\n      interval: 30s\n      timeout: 10s\n      retries: 5\n      start_period: 10s\nvolumes:\n  data:\n',
    "files/prometheus.yml":
      'global:\n  scrape_interval: 30s\nscrape_configs:\n  - job_name: prometheus\n    static_configs:\n      - targets: ["localhost:9090"]\n',
    "logo.svg":
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" role="img" aria-label="Prometheus"><rect width="64" height="64" rx="14" fill="#1e88e5"/><text x="32" y="41" font-family="system-ui, sans-serif" font-size="24" font-weight="700" text-anchor="middle" fill="#fff">PR</text></svg>\n',
    "template.yaml":
      'title: Prometheus\ndescription: A time-series database that scrapes metrics, with its query language and alerting rules.\ncategories: [monitoring]\nlogo: logo.svg\nversion: "3.0.1"\nnote: |\n  Open http://<this host>:${PORT}. It scrapes itself; add targets in prometheus.yml (a file of the stack) and apply.\nvariables:\n  - key: PORT\n    label: Web port\n    type: port\n    default: "9090"\n  - key: RETENTION\n    label: Keep data for\n    choices: [7d, 15d, 30d, 90d]\n    default: 15d\n',
  },
  syncthing: {
    "compose.yaml":
      'services:\n  syncthing:\n    image: syncthing/syncthing:1.28.1\n    restart: unless-stopped\n    hostname: syncthing\n    ports:\n      - "${WEB_PORT}:8384"\n      - "${SYNC_PORT}:22000/tcp"\n      - "${SYNC_PORT}:22000/udp"\n    volumes:\n      - data:/var/syncthing\n    healthcheck:\n      test: ["CMD-SHELL", "curl -fkLsS -m 2 127.0.0.1:8384/rest/noauth/health | grep -o --color=never OK || exit 1"]\n      interval: 30s\n      timeout: 10s\n      retries: 5\n      start_period: 30s\nvolumes:\n  data:\n',
    "logo.svg":
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" role="img" aria-label="Syncthing"><rect width="64" height="64" rx="14" fill="#660066"/><text x="32" y="41" font-family="system-ui, sans-serif" font-size="24" font-weight="700" text-anchor="middle" fill="#fff">SY</text></svg>\n',
    "template.yaml":
      'title: Syncthing\ndescription: Continuous file synchronisation between your devices, peer to peer and encrypted.\ncategories: [files, sync]\nlogo: logo.svg\nversion: "1.28.1"\nnote: |\n  Open http://<this host>:${WEB_PORT} and set a GUI user and password first. Devices connect on port ${SYNC_PORT}.\nvariables:\n  - key: WEB_PORT\n    label: Web page port\n    type: port\n    default: "8384"\n  - key: SYNC_PORT\n    label: Sync port\n    type: port\n    default: "22000"\n',
  },
  "uptime-kuma": {
    "compose.yaml":
      'services:\n  uptime-kuma:\n    image: louislam/uptime-kuma:1.23.16\n    restart: unless-stopped\n    ports:\n      - "${PORT}:3001"\n    volumes:\n      - data:/app/data\n    healthcheck:\n      test: ["CMD-SHELL", "curl -fsS http://127.0.0.1:3001 >/dev/null || exit 1"]\n      interval: 30s\n      timeout: 10s\n      retries: 5\n      start_period: 30s\nvolumes:\n  data:\n',
    "logo.svg":
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" role="img" aria-label="Uptime Kuma"><rect width="64" height="64" rx="14" fill="#8f0000"/><text x="32" y="41" font-family="system-ui, sans-serif" font-size="24" font-weight="700" text-anchor="middle" fill="#fff">UK</text></svg>\n',
    "template.yaml":
      'title: Uptime Kuma\ndescription: Uptime monitoring with status pages and notifications for websites, ports, DNS and containers.\ncategories: [monitoring]\nlogo: logo.svg\nversion: "1.23.16"\nnote: |\n  Open http://<this host>:${PORT} and create the admin account.\nvariables:\n  - key: PORT\n    label: Web port\n    type: port\n    default: "3002"\n',
  },
  vaultwarden: {
    "compose.yaml":
      'services:\n  vaultwarden:\n    image: vaultwarden/server:1.32.7\n    restart: unless-stopped\n    environment:\n      DOMAIN: ${DOMAIN}\n      SIGNUPS_ALLOWED: ${SIGNUPS_ALLOWED}\n      ADMIN_TOKEN: ${ADMIN_TOKEN}\n    ports:\n      - "${PORT}:80"\n    volumes:\n      - data:/data\n    healthcheck:\n      test: ["CMD", "/healthcheck.sh"]\n      interval: 30s\n      timeout: 10s\n      retries: 5\n      start_period: 30s\nvolumes:\n  data:\n',
    "logo.svg":
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" role="img" aria-label="Vaultwarden"><rect width="64" height="64" rx="14" fill="#5856d6"/><text x="32" y="41" font-family="system-ui, sans-serif" font-size="24" font-weight="700" text-anchor="middle" fill="#fff">VA</text></svg>\n',
    "template.yaml":
      'title: Vaultwarden\ndescription: A lightweight server for the Bitwarden password manager\'s apps and browser extensions.\ncategories: [security, passwords]\nlogo: logo.svg\nversion: "1.32.7"\nnote: |\n  Open http://<this host>:${PORT} and create the first account. The admin page is /admin, opened with the admin token shown once at install.\n  Browsers allow the web vault only over HTTPS: put it behind a reverse proxy with a certificate, and set the public URL.\nvariables:\n  - key: PORT\n    label: Web port\n    type: port\n    default: "8081"\n  - key: DOMAIN\n    label: Public URL\n    description: Where people reach it, such as https://vault.example.com; empty until it has one.\n    default: ""\n    required: false\n  - key: SIGNUPS_ALLOWED\n    label: Allow new sign-ups\n    type: boolean\n    default: "true"\n  - key: ADMIN_TOKEN\n    label: Admin token\n    description: Opens the /admin page.\n    secret: true\n',
  },
  wikijs: {
    "compose.yaml":
      'services:\n  wiki:\n    image: ghcr.io/requarks/wiki:2.5.300\n    restart: unless-stopped\n    environment:\n      DB_TYPE: postgres\n      DB_HOST: db\n      DB_PORT: "5432"\n      DB_USER: wikijs\n      DB_PASS: ${DB_PASSWORD}\n      DB_NAME: wiki\n    ports:\n      - "${PORT}:3000"\n    depends_on:\n      db:\n        condition: service_healthy\n    healthcheck:\n      test: ["CMD-SHELL", "wget -q -O /dev/null http://127.0.0.1:3000/healthz || exit 1"]\n      interval: 30s\n      timeout: 10s\n      retries: 5\n      start_period: 60s\n  db:\n    image: postgres:16.6-alpine\n    restart: unless-stopped\n    environment:\n      POSTGRES_DB: wiki\n      POSTGRES_USER: wikijs\n      POSTGRES_PASSWORD: ${DB_PASSWORD}\n    volumes:\n      - db:/var/lib/postgresql/data\n    healthcheck:\n      test: ["CMD-SHELL", "pg_isready -U wikijs -d wiki"]\n      interval: 30s\n      timeout: 10s\n      retries: 5\n      start_period: 10s\nvolumes:\n  db:\n',
    "logo.svg":
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" role="img" aria-label="Wiki.js"><rect width="64" height="64" rx="14" fill="#0e9f6e"/><text x="32" y="41" font-family="system-ui, sans-serif" font-size="24" font-weight="700" text-anchor="middle" fill="#fff">WI</text></svg>\n',
    "template.yaml":
      'title: Wiki.js\ndescription: A modern wiki with a visual and a Markdown editor, search, and page history, on PostgreSQL.\ncategories: [wiki, documentation]\nlogo: logo.svg\nversion: "2.5.300"\nnote: |\n  Open http://<this host>:${PORT} to create the administrator account.\nvariables:\n  - key: PORT\n    label: Web port\n    type: port\n    default: "3004"\n  - key: DB_PASSWORD\n    label: Database password\n    secret: true\n',
  },
}
