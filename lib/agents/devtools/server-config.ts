import { checkDomain, DEFAULT_DOMAIN } from "./inputs.ts";
import { codeBlock, fileBlock, fill } from "./markdown.ts";
import { isServerTarget, SERVER_TARGETS, type ServerTarget } from "./options.ts";

/**
 * Deployable configuration for this service on a platform. Pure: the only input is the target and a checked
 * hostname, which is the only value substituted into the files.
 */

export interface ServerConfigArgs {
  target: ServerTarget;
  /** The public hostname, e.g. licenses.example.com; a placeholder when omitted. */
  domain?: string;
}

export interface ServerConfigFile {
  path: string;
  lang: string;
  content: string;
}

interface ServerConfigDoc {
  title: string;
  intro: string;
  files: ServerConfigFile[];
  /** Markdown sections after the files (steps, commands). */
  steps: string[];
}

// "$" for shell and Compose variables inside templates ("${D}{NAME}" renders as "${NAME}").
const D = "$";
/**
 * Where a platform's own proxy connects from: private and shared address space. X-Forwarded-For is believed only
 * from these peers (TRUST_PROXY_FROM), which holds because the app's port is reachable only through that proxy.
 */
const PRIVATE_RANGES = "10.0.0.0/8,172.16.0.0/12,192.168.0.0/16,100.64.0.0/10,fc00::/7";

const DOCKERFILE = String.raw`# syntax=docker/dockerfile:1
# Multi-stage build of the licensing service (Next.js on Node 20).

FROM node:20-bookworm-slim AS build
WORKDIR /app
# python3, make and g++ build better-sqlite3's native addon.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ ca-certificates \
 && rm -rf /var/lib/apt/lists/*
ENV NEXT_TELEMETRY_DISABLED=1
# Dependencies first (postinstall generates the Prisma clients from prisma/ with scripts/), for layer caching.
COPY package.json package-lock.json ./
COPY prisma ./prisma
COPY scripts ./scripts
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production \
    NEXT_TELEMETRY_DISABLED=1 \
    PORT=3000 \
    HOST=0.0.0.0
WORKDIR /app
COPY --from=build --chown=node:node /app ./
# SQLite's file lives here when DATABASE_URL=file:./data/marketplace.db (mount a volume on /app/data).
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# npm start finds the production build made above, migrates the database and serves.
CMD ["npm", "start"]
`;

const DOCKERIGNORE = `node_modules
.next
data
lib/generated
prisma/generated
test-results
playwright-report
.git
.env
*.tsbuildinfo
`;

const COMPOSE = `# docker compose up -d --build
# Secrets come from .env next to this file (see below); Compose refuses to start without POSTGRES_PASSWORD.
services:
  app:
    build: .
    restart: unless-stopped
    environment:
      BASE_URL: https://@@DOMAIN@@
      PORT: "3000"
      DATABASE_URL: postgresql://licenses:${D}{POSTGRES_PASSWORD:?set POSTGRES_PASSWORD in .env}@db:5432/licenses
      DATABASE_POOL_SIZE: "10"
      # One reverse proxy (Caddy below) sits in front: take the client address from X-Forwarded-For.
      TRUST_PROXY: "1"
      # Caddy reaches the app over the Compose network; the app's port is published nowhere else.
      TRUST_PROXY_FROM: "${PRIVATE_RANGES}"
      STRIPE_SECRET_KEY: ${D}{STRIPE_SECRET_KEY:-}
      STRIPE_WEBHOOK_SECRET: ${D}{STRIPE_WEBHOOK_SECRET:-}
      RESEND_API_KEY: ${D}{RESEND_API_KEY:-}
      MAIL_FROM: ${D}{MAIL_FROM:-Licenses <licenses@@@DOMAIN@@>}
      RECEIPT_SECRET: ${D}{RECEIPT_SECRET:?set RECEIPT_SECRET in .env}
      SIGNING_KEY: ${D}{SIGNING_KEY:-}
    depends_on:
      db:
        condition: service_healthy
    healthcheck:
      test: ["CMD", "node", "-e", "fetch('http://127.0.0.1:3000/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
      interval: 30s
      timeout: 5s
      start_period: 60s
      retries: 3

  db:
    image: postgres:16
    restart: unless-stopped
    environment:
      POSTGRES_USER: licenses
      POSTGRES_PASSWORD: ${D}{POSTGRES_PASSWORD:?set POSTGRES_PASSWORD in .env}
      POSTGRES_DB: licenses
    volumes:
      - pgdata:/var/lib/postgresql/data
    healthcheck:
      test: ["CMD-SHELL", "pg_isready -U licenses -d licenses"]
      interval: 5s
      timeout: 5s
      retries: 10

  # TLS: Caddy obtains and renews a certificate for @@DOMAIN@@ (DNS must point here, ports 80 and 443 open).
  caddy:
    image: caddy:2
    restart: unless-stopped
    ports:
      - "80:80"
      - "443:443"
    volumes:
      - ./Caddyfile:/etc/caddy/Caddyfile:ro
      - caddy_data:/data
      - caddy_config:/config
    depends_on:
      app:
        condition: service_healthy

volumes:
  pgdata:
  caddy_data:
  caddy_config:
`;

const COMPOSE_CADDYFILE = `@@DOMAIN@@ {
	encode zstd gzip
	reverse_proxy app:3000
}
`;

const COMPOSE_ENV_COMMAND = `# .env next to docker-compose.yml (keep it out of version control)
cat > .env <<EOF
POSTGRES_PASSWORD=$(openssl rand -hex 24)
RECEIPT_SECRET=$(openssl rand -hex 32)
STRIPE_SECRET_KEY=
STRIPE_WEBHOOK_SECRET=
RESEND_API_KEY=
MAIL_FROM=Licenses <licenses@@@DOMAIN@@>
EOF
chmod 600 .env`;

const FLY_TOML = `# fly.toml for @@DOMAIN@@ (uses the Dockerfile next to it)
app = "@@APP_NAME@@"
primary_region = "fra"

[build]
  dockerfile = "Dockerfile"

[env]
  BASE_URL = "https://@@DOMAIN@@"
  PORT = "3000"
  TRUST_PROXY = "1"
  TRUST_PROXY_FROM = "${PRIVATE_RANGES}"
  HOST = "0.0.0.0"
  DATABASE_POOL_SIZE = "10"
  NODE_ENV = "production"

[http_service]
  internal_port = 3000
  force_https = true
  auto_stop_machines = "off"
  auto_start_machines = true
  min_machines_running = 1

  [http_service.concurrency]
    type = "requests"
    soft_limit = 500
    hard_limit = 1000

  [[http_service.checks]]
    grace_period = "60s"
    interval = "15s"
    timeout = "5s"
    method = "GET"
    path = "/health"

[[vm]]
  memory = "1gb"
  cpu_kind = "shared"
  cpus = 1
`;

const RAILWAY_JSON = `{
  "$schema": "https://railway.com/railway.schema.json",
  "build": {
    "builder": "RAILPACK",
    "buildCommand": "npm run build"
  },
  "deploy": {
    "startCommand": "npm start",
    "healthcheckPath": "/health",
    "healthcheckTimeout": 300,
    "restartPolicyType": "ON_FAILURE",
    "restartPolicyMaxRetries": 10
  }
}
`;

const RENDER_YAML = `# render.yaml (Blueprint) for @@DOMAIN@@. Plans are examples: pick yours on render.com.
services:
  - type: web
    name: @@APP_NAME@@
    runtime: node
    plan: starter
    buildCommand: npm ci && npm run build
    startCommand: npm start
    healthCheckPath: /health
    domains:
      - @@DOMAIN@@
    envVars:
      - key: NODE_VERSION
        value: "20"
      - key: BASE_URL
        value: https://@@DOMAIN@@
      - key: DATABASE_URL
        fromDatabase:
          name: @@APP_NAME@@-db
          property: connectionString
      - key: DATABASE_POOL_SIZE
        value: "10"
      - key: TRUST_PROXY
        value: "1"
      - key: TRUST_PROXY_FROM
        value: "${PRIVATE_RANGES}"
      - key: HOST
        value: 0.0.0.0
      - key: RECEIPT_SECRET
        generateValue: true
      - key: SIGNING_KEY
        sync: false
      - key: STRIPE_SECRET_KEY
        sync: false
      - key: STRIPE_WEBHOOK_SECRET
        sync: false
      - key: RESEND_API_KEY
        sync: false
      - key: MAIL_FROM
        value: Licenses <licenses@@@DOMAIN@@>

databases:
  - name: @@APP_NAME@@-db
    databaseName: licenses
    user: licenses
    plan: basic-256mb
    postgresMajorVersion: "16"
`;

const SYSTEMD_UNIT = `# /etc/systemd/system/licenses.service
[Unit]
Description=Licensing server for @@DOMAIN@@
After=network-online.target postgresql.service
Wants=network-online.target

[Service]
Type=simple
User=licenses
Group=licenses
WorkingDirectory=/opt/licenses
EnvironmentFile=/etc/licenses/licenses.env
# What "npm start" runs: serves the production build made by "npm run build", migrating the database first.
ExecStart=/usr/bin/node scripts/start.mjs
Restart=on-failure
RestartSec=5
TimeoutStopSec=15
NoNewPrivileges=true
PrivateTmp=true
ProtectSystem=strict
ProtectHome=true
ReadWritePaths=/opt/licenses/.next -/opt/licenses/data

[Install]
WantedBy=multi-user.target
`;

const VPS_ENV = `# /etc/licenses/licenses.env (root:licenses, mode 640)
NODE_ENV=production
BASE_URL=https://@@DOMAIN@@
PORT=3000
HOST=127.0.0.1
DATABASE_URL=postgresql://licenses:<DB_PASSWORD>@127.0.0.1:5432/licenses
DATABASE_POOL_SIZE=10
TRUST_PROXY=1
# Blank values count as unset. The setup script fills in RECEIPT_SECRET (openssl rand -hex 32); left blank, one is
# generated on first start and stored in the database, as is SIGNING_KEY.
RECEIPT_SECRET=
SIGNING_KEY=
STRIPE_SECRET_KEY=
STRIPE_WEBHOOK_SECRET=
RESEND_API_KEY=
MAIL_FROM=Licenses <licenses@@@DOMAIN@@>
`;

const VPS_CADDYFILE = `# /etc/caddy/Caddyfile: automatic HTTPS (Let's Encrypt) for @@DOMAIN@@
@@DOMAIN@@ {
	encode zstd gzip
	reverse_proxy 127.0.0.1:3000
}
`;

const VPS_NGINX = `# /etc/nginx/sites-available/@@DOMAIN@@ (alternative to Caddy; certificate from: certbot --nginx -d @@DOMAIN@@)
server {
    listen 80;
    listen [::]:80;
    server_name @@DOMAIN@@;
    return 301 https://$host$request_uri;
}

server {
    listen 443 ssl http2;
    listen [::]:443 ssl http2;
    server_name @@DOMAIN@@;

    ssl_certificate     /etc/letsencrypt/live/@@DOMAIN@@/fullchain.pem;
    ssl_certificate_key /etc/letsencrypt/live/@@DOMAIN@@/privkey.pem;
    ssl_protocols TLSv1.2 TLSv1.3;

    client_max_body_size 1m;

    location / {
        proxy_pass http://127.0.0.1:3000;
        proxy_http_version 1.1;
        proxy_set_header Host $host;
        proxy_set_header X-Forwarded-For $remote_addr;
        proxy_set_header X-Forwarded-Proto $scheme;
        proxy_set_header Connection "";
        proxy_read_timeout 60s;
    }
}
`;

const VPS_SETUP = `# Debian 12 / Ubuntu 24.04, as root.
set -euo pipefail

# Node.js 20 (NodeSource), PostgreSQL, Caddy, and the tools to build better-sqlite3.
curl -fsSL https://deb.nodesource.com/setup_20.x | bash -
apt-get install -y nodejs postgresql caddy git python3 make g++ openssl

# Database and role.
DB_PASSWORD=$(openssl rand -hex 24)
sudo -u postgres psql -v ON_ERROR_STOP=1 -c "CREATE ROLE licenses LOGIN PASSWORD '${D}DB_PASSWORD'"
sudo -u postgres createdb --owner=licenses licenses

# Service user and code (clone your copy of the service, or unpack a release).
useradd --system --home-dir /opt/licenses --shell /usr/sbin/nologin licenses
git clone https://github.com/<you>/<your-fork>.git /opt/licenses
chown -R licenses:licenses /opt/licenses
cd /opt/licenses
sudo -u licenses -H npm ci --no-audit --no-fund
sudo -u licenses -H npm run build

# Configuration: write licenses.env from the template above, then fill in the secrets.
install -d -m 750 -o root -g licenses /etc/licenses
install -m 640 -o root -g licenses licenses.env /etc/licenses/licenses.env
sed -i "s|<DB_PASSWORD>|${D}DB_PASSWORD|; s|^RECEIPT_SECRET=$|RECEIPT_SECRET=$(openssl rand -hex 32)|" /etc/licenses/licenses.env

# Start (migrations run automatically), then TLS in front.
install -m 644 licenses.service /etc/systemd/system/licenses.service
systemctl daemon-reload
systemctl enable --now licenses
install -m 644 Caddyfile /etc/caddy/Caddyfile
systemctl reload caddy
curl -fsS https://@@DOMAIN@@/health
`;

function appName(domain: string): string {
  // Fly and Render names: lowercase letters, digits and dashes.
  return domain
    .replace(/\./g, "-")
    .replace(/[^a-z0-9-]/g, "")
    .slice(0, 50)
    .replace(/-+$/, "");
}

const ENV_NOTE =
  "`RECEIPT_SECRET` (at least 32 characters) and `SIGNING_KEY` (an Ed25519 key: PKCS#8 PEM or the base64url of a 32-byte seed) are generated on first start and stored in the database when unset; set `RECEIPT_SECRET` explicitly so every instance and every restore signs alike. Without `STRIPE_SECRET_KEY` a production deployment refuses paid checkout (`PAYMENTS=test` opts into the built-in test mode, a Pay button that takes no money), and without `RESEND_API_KEY` e-mail goes to the dev mailbox: set both before selling.";

function docFor(target: ServerTarget, domain: string): ServerConfigDoc {
  const v = { DOMAIN: domain, APP_NAME: appName(domain) };
  const dockerfile: ServerConfigFile = { path: "Dockerfile", lang: "dockerfile", content: DOCKERFILE };
  const dockerignore: ServerConfigFile = { path: ".dockerignore", lang: "text", content: DOCKERIGNORE };
  switch (target) {
    case "docker":
      return {
        title: "Docker Compose",
        intro: `The service, PostgreSQL 16 and Caddy (TLS) on one Docker host, served at https://${domain}.`,
        files: [
          dockerfile,
          dockerignore,
          { path: "docker-compose.yml", lang: "yaml", content: fill(COMPOSE, v) },
          { path: "Caddyfile", lang: "caddyfile", content: fill(COMPOSE_CADDYFILE, v) },
        ],
        steps: [
          `## Deploy\n\n1. Point the DNS record of \`${domain}\` at the host and open ports 80 and 443.\n2. Put the files above in the service's checkout (next to \`package.json\`) and create \`.env\` with fresh secrets (then fill in the Stripe and Resend keys):\n\n${codeBlock("sh", fill(COMPOSE_ENV_COMMAND, v))}\n\n3. Start:\n\n${codeBlock("sh", `docker compose up -d --build\ndocker compose logs -f app          # "ready: https://${domain} ..." once migrated\ncurl -fsS https://${domain}/health`)}\n\nFor a single small instance without PostgreSQL, drop the \`db\` service, set \`DATABASE_URL: file:./data/marketplace.db\` and mount a volume on \`/app/data\`; SQLite then needs that volume to persist.`,
          `## Notes\n\n- ${ENV_NOTE}\n- Back up the \`pgdata\` volume (\`docker compose exec db pg_dump -U licenses licenses > backup.sql\`).\n- Stripe webhooks go to \`https://${domain}/api/webhooks/stripe\`.`,
        ],
      };
    case "fly":
      return {
        title: "Fly.io",
        intro: `The service on Fly.io with Fly Postgres, served at https://${domain}.`,
        files: [{ path: "fly.toml", lang: "toml", content: fill(FLY_TOML, v) }, dockerfile, dockerignore],
        steps: [
          `## Deploy\n\n${codeBlock(
            "sh",
            `fly apps create ${v.APP_NAME}
fly postgres create --name ${v.APP_NAME}-db --region fra
fly postgres attach ${v.APP_NAME}-db --app ${v.APP_NAME}   # sets the DATABASE_URL secret
fly secrets set --app ${v.APP_NAME} RECEIPT_SECRET=$(openssl rand -hex 32) \\
  STRIPE_SECRET_KEY=sk_live_... STRIPE_WEBHOOK_SECRET=whsec_... RESEND_API_KEY=re_... \\
  MAIL_FROM="Licenses <licenses@${domain}>"
fly deploy
fly certs add ${domain} --app ${v.APP_NAME}    # then create the DNS records it prints
curl -fsS https://${domain}/health`,
          )}\n\nFly's proxy sets \`X-Forwarded-For\`, hence \`TRUST_PROXY = "1"\`. Fly also offers Managed Postgres (\`fly mpg\`) at the time of writing; attach either, the service only needs \`DATABASE_URL\`.`,
          `## Notes\n\n- ${ENV_NOTE}\n- Scale out with \`fly scale count 2\`: migrations are safe to run concurrently, and rate limits count per instance.\n- Keep \`instances × DATABASE_POOL_SIZE\` below the database's \`max_connections\`.`,
        ],
      };
    case "railway":
      return {
        title: "Railway",
        intro: `The service on Railway with a Railway PostgreSQL database, served at https://${domain}.`,
        files: [{ path: "railway.json", lang: "json", content: RAILWAY_JSON }],
        steps: [
          `## Deploy\n\n1. Commit \`railway.json\` to the service's repository, create a Railway project from it (\`railway init\`, or "Deploy from GitHub repo").\n2. Add a database: \`railway add --database postgres\`.\n3. Set the service's variables (dashboard → Variables, or \`railway variables --set\`):\n\n${codeBlock(
            "sh",
            `DATABASE_URL=${D}{{Postgres.DATABASE_URL}}
BASE_URL=https://${domain}
RAILPACK_NODE_VERSION=20
TRUST_PROXY=1
TRUST_PROXY_FROM=${PRIVATE_RANGES}
HOST=0.0.0.0
DATABASE_POOL_SIZE=10
RECEIPT_SECRET=<openssl rand -hex 32>
STRIPE_SECRET_KEY=...
STRIPE_WEBHOOK_SECRET=...
RESEND_API_KEY=...
MAIL_FROM=Licenses <licenses@${domain}>`,
          )}\n\n4. Deploy (\`railway up\`), then add the custom domain \`${domain}\` under Settings → Networking and create the DNS record it shows.\n5. Check: \`curl -fsS https://${domain}/health\`. Railway waits for \`/health\` before switching traffic to a new deployment.\n\nRailway provides \`PORT\`; the service listens on it. If the repository also contains a \`Dockerfile\`, Railway builds with it instead of Railpack (at the time of writing).`,
          `## Notes\n\n- ${ENV_NOTE}`,
        ],
      };
    case "render":
      return {
        title: "Render",
        intro: `The service on Render as a Blueprint (web service + PostgreSQL), served at https://${domain}.`,
        files: [{ path: "render.yaml", lang: "yaml", content: fill(RENDER_YAML, v) }],
        steps: [
          `## Deploy\n\n1. Commit \`render.yaml\` to the root of the service's repository.\n2. In the Render dashboard: New → Blueprint, pick the repository; Render creates the database and the web service, wires \`DATABASE_URL\` from the database's \`connectionString\` and generates \`RECEIPT_SECRET\`.\n3. Fill in the \`sync: false\` variables (Stripe, Resend; \`SIGNING_KEY\` may stay empty) when asked.\n4. Create the DNS record for \`${domain}\` that Render shows under Settings → Custom Domains; it issues the certificate.\n5. Check: \`curl -fsS https://${domain}/health\` (Render also uses it as the health check).`,
          `## Notes\n\n- ${ENV_NOTE}\n- Render's proxy sets \`X-Forwarded-For\`, hence \`TRUST_PROXY=1\`.\n- Plan names change; the ones above are examples at the time of writing.`,
        ],
      };
    case "vps":
      return {
        title: "VPS (systemd + Caddy or nginx)",
        intro: `The service on a Debian/Ubuntu server under systemd, with PostgreSQL on the same host and TLS from Caddy (or nginx + certbot), served at https://${domain}.`,
        files: [
          { path: "licenses.service", lang: "ini", content: fill(SYSTEMD_UNIT, v) },
          { path: "licenses.env", lang: "sh", content: fill(VPS_ENV, v) },
          { path: "Caddyfile", lang: "caddyfile", content: fill(VPS_CADDYFILE, v) },
          { path: `nginx-${domain}.conf`, lang: "nginx", content: fill(VPS_NGINX, v) },
        ],
        steps: [
          `## Setup\n\nWith the four files above in the current directory:\n\n${codeBlock("sh", fill(VPS_SETUP, v))}`,
          `## Notes\n\n- ${ENV_NOTE}\n- The service listens on 127.0.0.1:3000 only (\`HOST\`); Caddy or nginx is the one proxy in front (\`TRUST_PROXY=1\`).\n- Updates: \`git pull && npm ci && npm run build && systemctl restart licenses\` (as the \`licenses\` user for the first three).\n- Backups: \`sudo -u postgres pg_dump licenses > licenses-$(date +%F).sql\`.`,
        ],
      };
  }
}

/** The files only, for callers that want them unrendered (tests, downloads). */
export function serverConfigFiles(args: ServerConfigArgs): ServerConfigFile[] {
  return docFor(checkTarget(args), domainOf(args)).files;
}

function checkTarget(args: ServerConfigArgs | null | undefined): ServerTarget {
  // The arguments come from agents (MCP, REST): checked as the unknown values they may really be.
  if (!args || !isServerTarget(args.target)) throw new Error(`target must be one of ${SERVER_TARGETS.join(", ")}`);
  return args.target;
}

function domainOf(args: ServerConfigArgs): string {
  const domain: unknown = args.domain;
  return domain === undefined || domain === null ? DEFAULT_DOMAIN : checkDomain(domain);
}

/**
 * Markdown with deployable files for this service on a target platform, using domain (a hostname) or a
 * placeholder. Throws on an unknown target or a domain that is not a plain hostname.
 */
export function generateServerConfig(args: ServerConfigArgs): string {
  const target = checkTarget(args);
  const domain = domainOf(args);
  const doc = docFor(target, domain);
  const parts = [
    `# Deploying the licensing service: ${doc.title}`,
    doc.intro,
    "It is a Node.js 20 app: `npm run build` at build time, `npm start` to serve on `PORT` (3000), health check `GET /health`, database migrations applied automatically at start.",
    "## Files",
    ...doc.files.map((f) => fileBlock(f.path, f.lang, f.content)),
    ...doc.steps,
  ];
  if (args.domain === undefined) parts.splice(2, 0, `Replace \`${DEFAULT_DOMAIN}\` with your own hostname (or pass \`domain\`).`);
  return `${parts.join("\n\n")}\n`;
}
