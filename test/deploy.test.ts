import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { ENV_VARIABLES } from '../src/config.js';

type Doc = Record<string, unknown>;
const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');
const known = new Set<string>(ENV_VARIABLES);

describe('deploy/compose.yaml', () => {
  const compose = parse(read('deploy/compose.yaml')) as {
    services: Record<string, Doc & { environment?: Record<string, string>; healthcheck?: Doc }>;
    volumes: Record<string, unknown>;
  };
  const bot = compose.services.bot;
  const postgres = compose.services.postgres;

  it('runs two bot replicas on PostgreSQL, each with a health check, the database on a named volume', () => {
    expect(bot?.deploy).toEqual({ replicas: 2 });
    expect(bot?.environment?.DATABASE_URL).toMatch(
      /^postgres:\/\/netops:\$\{POSTGRES_PASSWORD\}@postgres:5432\/netops$/,
    );
    expect(JSON.stringify(bot?.healthcheck)).toContain('/healthz');
    expect(JSON.stringify(postgres?.healthcheck)).toContain('pg_isready');
    expect(postgres?.volumes).toEqual(['netops-db:/var/lib/postgresql/data']);
    expect(Object.keys(compose.volumes)).toEqual(['netops-db']);
    expect(bot?.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
  });

  it('sets only variables the bot reads', () => {
    const unknown = Object.keys(bot?.environment ?? {}).filter((name) => !known.has(name));
    expect(unknown).toEqual([]);
  });

  it('spreads HTTP-mode requests over the replicas in its proxy', () => {
    expect(read('deploy/nginx.conf')).toMatch(
      /location \/slack\/events \{\s*proxy_pass http:\/\/netops_bot;/,
    );
  });

  it('keeps an MCP client on the replica that holds its session, and never resends a tool call', () => {
    const conf = read('deploy/nginx.conf');
    expect(conf).toMatch(/upstream netops_mcp \{\s*hash \$remote_addr consistent;/);
    const mcp = /location = \/mcp \{([^}]*)\}/.exec(conf)?.[1] ?? '';
    expect(mcp).toContain('proxy_pass http://netops_mcp;');
    expect(mcp).toContain('proxy_next_upstream off;');
  });
});

describe('deploy/kubernetes.yaml', () => {
  const docs = parseAllDocuments(read('deploy/kubernetes.yaml')).map((d) => d.toJS() as Doc);
  const byKind = (kind: string): unknown => docs.find((d) => d.kind === kind);
  const secret = byKind('Secret') as { metadata: { name: string }; stringData: Record<string, string> };
  const deployment = byKind('Deployment') as {
    spec: {
      replicas: number;
      template: {
        spec: {
          containers: {
            env: { name: string }[];
            envFrom: { secretRef: { name: string } }[];
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

  it('takes the tokens and the database URL from a Secret', () => {
    expect(container?.envFrom).toEqual([{ secretRef: { name: secret.metadata.name } }]);
    expect(Object.keys(secret.stringData)).toEqual(
      expect.arrayContaining(['SLACK_BOT_TOKEN', 'SLACK_SIGNING_SECRET', 'DATABASE_URL', 'GATEWAY_API_KEY']),
    );
    expect((container?.env ?? []).map((e) => e.name)).not.toContain('SLACK_BOT_TOKEN');
  });

  it('sets only variables the bot reads', () => {
    const names = [...Object.keys(secret.stringData), ...(container?.env ?? []).map((e) => e.name)];
    expect(names.filter((name) => !known.has(name))).toEqual([]);
  });
});
