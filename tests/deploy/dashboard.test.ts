/**
 * deploy/grafana/tomodachi.json imports into Grafana (the schema's essentials hold) and every
 * panel queries metrics the bot really exports, read from a live registry.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { PrometheusMetrics } from '../../src/metrics/prometheus-metrics.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const DATASOURCE = { type: 'prometheus', uid: '${datasource}' };

const target = z.object({
  refId: z.string().regex(/^[A-Z]$/),
  expr: z.string().min(1),
  datasource: z.object({ type: z.literal('prometheus'), uid: z.string() }),
});
const gridPos = z.object({ h: z.number(), w: z.number().max(24), x: z.number(), y: z.number() });
const panel = z.discriminatedUnion('type', [
  z.object({ id: z.number().int(), type: z.literal('row'), title: z.string(), gridPos }),
  z.object({
    id: z.number().int(),
    type: z.enum(['timeseries', 'stat', 'gauge', 'table']),
    title: z.string().min(1),
    gridPos,
    datasource: z.object({ type: z.literal('prometheus'), uid: z.string() }),
    targets: z.array(target).min(1),
  }),
]);
const dashboard = z.object({
  uid: z.string().min(1),
  title: z.string().min(1),
  schemaVersion: z.number().int().min(30),
  templating: z.object({
    list: z.array(z.object({ name: z.string(), type: z.string(), query: z.string() })),
  }),
  panels: z.array(panel).min(10),
});

function readDashboard() {
  const text = readFileSync(path.join(ROOT, 'deploy/grafana/tomodachi.json'), 'utf8');
  return dashboard.parse(JSON.parse(text));
}

/** Every series name the registry can export: histograms as _bucket, _sum and _count. */
async function exportedNames(): Promise<Set<string>> {
  const metrics = new PrometheusMetrics();
  const names = new Set<string>();
  for (const metric of await metrics.registry.getMetricsAsJSON()) {
    names.add(metric.name);
    if (String(metric.type) === 'histogram' || String(metric.type) === 'summary') {
      for (const suffix of ['_bucket', '_sum', '_count']) names.add(`${metric.name}${suffix}`);
    }
  }
  return names;
}

/** The metric names a PromQL expression reads (identifiers that are not functions or labels). */
function metricNamesIn(expr: string): string[] {
  const withoutLabels = expr.replace(/\{[^}]*\}/g, '').replace(/\[[^\]]*\]/g, '');
  const withoutGroupings = withoutLabels.replace(/\b(by|without)\s*\([^)]*\)/g, '');
  return [...withoutGroupings.matchAll(/\b([a-z_][a-z0-9_]*)\b(?!\s*\()/g)]
    .map((match) => match[1] ?? '')
    .filter((name) => /_/.test(name));
}

describe('the Grafana dashboard', () => {
  it('has the shape Grafana imports: unique panel ids, a datasource variable on every query', () => {
    const parsed = readDashboard();
    const ids = parsed.panels.map((entry) => entry.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(parsed.templating.list).toContainEqual(
      expect.objectContaining({ name: 'datasource', type: 'datasource', query: 'prometheus' }),
    );
    for (const entry of parsed.panels) {
      if (entry.type === 'row') continue;
      expect(entry.datasource, entry.title).toEqual(DATASOURCE);
      for (const query of entry.targets) expect(query.datasource, entry.title).toEqual(DATASOURCE);
      const refIds = entry.targets.map((query) => query.refId);
      expect(new Set(refIds).size, entry.title).toBe(refIds.length);
    }
  });

  it('queries only metrics the bot exports, and shows every family of the bot', async () => {
    const exported = await exportedNames();
    const queried = new Set<string>();
    for (const entry of readDashboard().panels) {
      if (entry.type === 'row') continue;
      for (const query of entry.targets) {
        const names = metricNamesIn(query.expr);
        expect(names, `${entry.title}: ${query.expr}`).not.toEqual([]);
        for (const name of names) {
          expect(exported.has(name), `${entry.title}: ${name} is not exported`).toBe(true);
          queried.add(name.replace(/_(bucket|sum|count)$/, ''));
        }
      }
    }
    const families = [...exported].filter((name) => name.startsWith('tomodachi_'));
    const shown = families.filter(
      (name) => queried.has(name) || queried.has(name.replace(/_(bucket|sum|count)$/, '')),
    );
    expect(shown.sort()).toEqual(families.sort());
  });

  it('is provisioned by the monitoring profile with the Prometheus datasource', () => {
    const datasource = readFileSync(
      path.join(ROOT, 'deploy/grafana/provisioning/datasources/prometheus.yaml'),
      'utf8',
    );
    expect(datasource).toMatch(/type: prometheus/);
    expect(datasource).toMatch(/url: http:\/\/prometheus:9090/);
    const provider = readFileSync(
      path.join(ROOT, 'deploy/grafana/provisioning/dashboards/tomodachi.yaml'),
      'utf8',
    );
    expect(provider).toMatch(/path: \/var\/lib\/grafana\/dashboards/);
    const prometheus = readFileSync(path.join(ROOT, 'deploy/prometheus/prometheus.yml'), 'utf8');
    expect(prometheus).toMatch(/targets: \['bot:9464'\]/);
  });
});
