/**
 * There is no Docker daemon on the build machines: these checks hold the Dockerfile and
 * compose.yaml to the properties an operator relies on.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
const compose = readFileSync(path.join(ROOT, 'compose.yaml'), 'utf8');

/** The instructions of the image's final stage (after the last FROM), continuations joined. */
function finalStage(): string[] {
  const joined = dockerfile.replace(/\\\n\s*/g, ' ');
  const lines = joined.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('#'));
  const last = lines.map((line) => line.startsWith('FROM ')).lastIndexOf(true);
  return lines.slice(last);
}

/** The block of one compose service (its indented lines). */
function service(name: string): string {
  const match = new RegExp(`^  ${name}:\\n((?:    .*\\n|\\s*\\n)*)`, 'm').exec(compose);
  if (match === null) throw new Error(`no service ${name} in compose.yaml`);
  return match[1] ?? '';
}

describe('the container image', () => {
  const stage = finalStage();

  it('runs as a non-root user', () => {
    const user = stage.filter((line) => line.startsWith('USER ')).at(-1);
    expect(user).toBeDefined();
    expect(user).not.toMatch(/^USER (root|0)\b/);
    const userAt = stage.indexOf(user ?? '');
    expect(stage.findIndex((line) => line.startsWith('CMD '))).toBeGreaterThan(userAt);
  });

  it('serves /healthz (METRICS_PORT set in the image) and checks it', () => {
    expect(stage.join('\n')).toMatch(/ENV [^\n]*METRICS_PORT=9464/);
    expect(stage.join('\n')).toMatch(/ENV [^\n]*METRICS_HOST=0\.0\.0\.0/);
    const healthcheck = stage.find((line) => line.startsWith('HEALTHCHECK '));
    expect(healthcheck).toMatch(/\/healthz/);
    expect(healthcheck).toMatch(/process\.env\.METRICS_PORT/);
  });

  it('has an init as PID 1 that hands SIGTERM to node and reaps MCP processes', () => {
    expect(stage.join('\n')).toMatch(/apt-get install [^\n]*\btini\b/);
    expect(stage).toContain('ENTRYPOINT ["/usr/bin/tini", "--"]');
    const command = stage.find((line) => line.startsWith('CMD '));
    expect(command).toMatch(/^CMD \["node", .*"dist\/main\.js"\]$/);
  });

  it('runs the JavaScript it builds from the sources it copies (no TypeScript at run time)', () => {
    const text = stage.join('\n');
    const build = text.indexOf('node scripts/build.mjs');
    expect(build).toBeGreaterThan(text.indexOf('COPY src ./src'));
    expect(build).toBeGreaterThan(text.indexOf('COPY scripts ./scripts'));
  });

  it('keeps its data in a volume owned by the runtime user', () => {
    expect(stage).toContain('VOLUME ["/data"]');
    expect(stage.join('\n')).toMatch(/chown node:node \/data/);
    expect(stage.join('\n')).toMatch(/DATA_DIR=\/data/);
  });
});

describe('compose.yaml', () => {
  const bot = service('bot');

  it('asks for a database password instead of defaulting one', () => {
    expect(compose).not.toMatch(/POSTGRES_PASSWORD:-/);
    expect(service('postgres')).toMatch(/POSTGRES_PASSWORD: \$\{POSTGRES_PASSWORD:\?[^}]+\}/);
    expect(bot).toMatch(/DATABASE_URL: postgres:\/\/bot:\$\{POSTGRES_PASSWORD:\?[^}]+\}@/);
  });

  it('comes back after a crash and after a daemon or host restart (a clean exit 0 included)', () => {
    // on-failure does not restart a container that exited 0, as a SIGTERM at a daemon restart
    // ends the bot; unless-stopped does, until the operator stops it.
    for (const name of ['bot', 'bot-shards-0-1', 'bot-shards-2-3', 'postgres']) {
      expect(service(name), name).toMatch(/restart: unless-stopped/);
    }
  });

  it('reaches a model server on the host as host.docker.internal', () => {
    for (const name of ['bot', 'bot-shards-0-1', 'bot-shards-2-3']) {
      expect(service(name), name).toMatch(
        /extra_hosts:\n\s+- ['"]?host\.docker\.internal:host-gateway['"]?/,
      );
    }
  });

  it('keeps logs bounded, where `docker compose logs` reads them', () => {
    expect(compose).toMatch(
      /x-logging: &logging\n\s+driver: json-file\n\s+options:\n\s+max-size: \d+m/,
    );
    for (const name of ['bot', 'postgres'])
      expect(service(name), name).toMatch(/logging: \*logging/);
  });

  it('keeps data in a named volume and mounts the optional operator files', () => {
    expect(bot).toMatch(/- bot-data:\/data/);
    expect(compose).toMatch(/^volumes:\n(?: {2}.*\n)* {2}bot-data:/m);
    expect(bot).toMatch(/MCP_CONFIG: \$\{MCP_CONFIG:\+\/config\/mcp\.json\}/);
    expect(bot).toMatch(/- \$\{MCP_CONFIG:-\/dev\/null\}:\/config\/mcp\.json:ro/);
    expect(bot).toMatch(/MODEL_CATALOG: \$\{MODEL_CATALOG:\+\/config\/models\.json\}/);
    expect(bot).toMatch(/- \$\{MODEL_CATALOG:-\/dev\/null\}:\/config\/models\.json:ro/);
  });

  it('binds metrics inside the container, published on the host loopback only', () => {
    expect(bot).toMatch(/METRICS_HOST: 0\.0\.0\.0/);
    const published = compose.match(/^\s+- (?:'|")?[\d.:]*\d+:\d+(?:'|")?$/gm) ?? [];
    expect(published.length).toBeGreaterThan(0);
    for (const port of published) expect(port.trim()).toMatch(/^- 127\.0\.0\.1:/);
  });

  it('has a monitoring profile: Prometheus scraping the bot, Grafana provisioned', () => {
    const prometheus = service('prometheus');
    const grafana = service('grafana');
    expect(prometheus).toMatch(/profiles: \[monitoring\]/);
    expect(grafana).toMatch(/profiles: \[monitoring\]/);
    expect(prometheus).toMatch(/\.\/deploy\/prometheus\/prometheus\.yml:\/etc\/prometheus/);
    expect(grafana).toMatch(/\.\/deploy\/grafana\/provisioning:\/etc\/grafana\/provisioning/);
    expect(grafana).toMatch(/\.\/deploy\/grafana\/tomodachi\.json:\/var\/lib\/grafana\/dashboards/);
  });
});

describe('compose.yaml scale profile', () => {
  const shardServices = ['bot-shards-0-1', 'bot-shards-2-3'];

  /** The shard ids a SHARD_IDS value names (`0-1` or `0,2,5`). */
  function shardIds(block: string): number[] {
    const value = /SHARD_IDS: ['"]?([\d,-]+)['"]?/.exec(block)?.[1] ?? '';
    return value.split(',').flatMap((part) => {
      const [from, to] = part.split('-').map(Number);
      if (from === undefined) return [];
      return Array.from({ length: (to ?? from) - from + 1 }, (_unused, index) => from + index);
    });
  }

  it('runs the REST proxy from the bot image, reachable by the other services only', () => {
    const proxy = service('rest-proxy');
    expect(proxy).toMatch(/profiles: \[scale\]/);
    expect(proxy).toMatch(/command: \['node', 'scripts\/rest-proxy\.ts'\]/);
    expect(proxy).toMatch(/REST_PROXY_HOST: 0\.0\.0\.0/);
    expect(proxy).toMatch(/REST_PROXY_PORT: '8080'/);
    expect(proxy).toMatch(/DISCORD_API_URL: \$\{DISCORD_API_URL:-https:\/\/discord\.com\/api\}/);
    expect(proxy).toMatch(/healthcheck:[\s\S]*8080\/healthz/);
    expect(proxy).not.toMatch(/ports:/);
  });

  it('splits SHARD_COUNT=4 between two bot services that send REST through the proxy', () => {
    const blocks = shardServices.map((name) => service(name));
    for (const block of blocks) {
      expect(block).toMatch(/profiles: \[scale\]/);
      expect(block).toMatch(/SHARD_COUNT: '4'/);
      expect(block).toMatch(/DISCORD_REST_PROXY: http:\/\/rest-proxy:8080\/api/);
      expect(block).toMatch(
        /DATABASE_URL: postgres:\/\/bot:\$\{POSTGRES_PASSWORD:\?[^}]+\}@postgres:5432\/bot/,
      );
      expect(block).toMatch(/rest-proxy:\n\s+condition: service_healthy/);
      expect(block).toMatch(/postgres:\n\s+condition: service_healthy/);
    }
    const [first, second] = blocks.map(shardIds);
    expect(first).toEqual([0, 1]);
    expect(second).toEqual([2, 3]);
  });

  it('keeps the single bot out of the scale profile (turned off with --scale bot=0)', () => {
    expect(service('bot')).not.toMatch(/profiles:/);
    expect(compose).toMatch(/--profile scale up -d --scale bot=0/);
  });
});

describe('the README, read before the first docker compose up', () => {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const docker = /### Running with Docker\n([\s\S]*?)\n### /.exec(readme)?.[1] ?? '';

  it('names every key compose needs, BOT_ENCRYPTION_KEY included, and the documented check', () => {
    for (const key of ['DISCORD_TOKEN', 'BOT_ENCRYPTION_KEY', 'POSTGRES_PASSWORD'])
      expect(docker, key).toContain(key);
    expect(docker).toContain('docker compose config');
    expect(docker).toContain('host.docker.internal');
  });

  it('says how to upgrade, back up, restore and read the logs under compose', () => {
    expect(docker).toMatch(/docker compose build --pull/);
    expect(docker).toMatch(/pg_dump/);
    expect(docker).toMatch(/pg_restore/);
    expect(docker).toMatch(/docker compose logs/);
  });
});

describe('a fresh clone', () => {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');

  it('keeps what `npm run backup` writes out of git', () => {
    const ignored = readFileSync(path.join(ROOT, '.gitignore'), 'utf8').split('\n');
    expect(ignored).toContain('backups/');
  });

  it('explains the EBADENGINE warning npm ci prints under an older system Node', () => {
    const quickStart = /## Quick start\n([\s\S]*?)\n## /.exec(readme)?.[1] ?? '';
    expect(quickStart).toMatch(/EBADENGINE[\s\S]*harmless/);
  });
});
