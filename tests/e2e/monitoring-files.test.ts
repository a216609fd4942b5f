/**
 * Issue 29 item 3 (decision 0085): the alert rules (monitoring/prometheus/alerts.yml) and the Grafana
 * dashboard (monitoring/grafana/payments-platform.json) are well formed (every expression parses
 * with Prometheus's own PromQL grammar, every alert has a severity, a summary and a runbook heading
 * that exists), and every metric they name is exported by the running product (a scrape of the
 * test stack's API process, which also runs the worker: its `temporal_*` SDK metrics included).
 */
import fs from 'node:fs';
import path from 'node:path';
import { parser } from '@prometheus-io/lezer-promql';
import yaml from 'js-yaml';
import { slug } from '../../api/docs/markdown';
import { closeDb } from '../../lib/db';
import { client, connectDb, eventually, expectOk, newAccount } from '../helpers/api';

beforeAll(async () => {
  await connectDb();
});
afterAll(async () => {
  await closeDb();
});

const root = path.resolve(__dirname, '../..');
/** Series Prometheus itself adds to every target (not exported by the product). */
const PROMETHEUS_OWN = new Set(['up']);

/** The metric names an expression selects, parsed with Prometheus's PromQL grammar; throws on a syntax error. */
function metricNames(expr: string): string[] {
  const tree = parser.parse(expr);
  const names: string[] = [];
  let error: number | null = null;
  tree.iterate({
    enter(n) {
      if (n.type.isError) error = n.from;
      if (n.name === 'VectorSelector') {
        const id = n.node.getChild('Identifier');
        if (id) names.push(expr.slice(id.from, id.to));
      }
    },
  });
  if (error !== null) throw new Error(`PromQL syntax error at ${error}: ${expr}`);
  return names;
}

interface Rule {
  alert: string;
  expr: string;
  for?: string;
  labels?: { severity?: string };
  annotations?: { summary?: string; runbook?: string };
}
const rules = (
  yaml.load(fs.readFileSync(path.join(root, 'monitoring/prometheus/alerts.yml'), 'utf8')) as { groups: Array<{ rules: Rule[] }> }
).groups.flatMap((g) => g.rules);
const dashboard = JSON.parse(fs.readFileSync(path.join(root, 'monitoring/grafana/payments-platform.json'), 'utf8')) as {
  panels: Array<{ type: string; title: string; targets?: Array<{ expr: string }> }>;
};
const dashboardExprs = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => ({ panel: p.title, expr: t.expr })));

test('the alert rules are well formed and documented in the runbook', () => {
  expect(rules.length).toBeGreaterThanOrEqual(10);
  // The runbook is served on the docs site, where headings get these ids (api/docs/markdown.tsx).
  const runbook = fs.readFileSync(path.join(root, 'docs/guides/operator-runbook.md'), 'utf8');
  const anchors = new Set([...runbook.matchAll(/^#{2,4} (.+)$/gm)].map((m) => slug(m[1])));
  const names = new Set<string>();
  for (const r of rules) {
    expect(r.alert).toMatch(/^Payments[A-Za-z0-9]+$/);
    expect(names.has(r.alert)).toBe(false);
    names.add(r.alert);
    expect(['page', 'warning', 'info']).toContain(r.labels?.severity);
    expect(r.annotations?.summary).toBeTruthy();
    expect(r.annotations?.runbook).toMatch(/^docs\/guides\/operator-runbook\.md#[a-z0-9-]+$/);
    expect(anchors).toContain(r.annotations!.runbook!.split('#')[1]);
    expect(metricNames(r.expr).length).toBeGreaterThan(0);
  }
  // The list: outbox lag, webhook failure ratio, parked workflows, 5xx ratio, provider error ratio, PostgreSQL or Temporal unreachable.
  for (const a of [
    'PaymentsOutboxLagHigh',
    'PaymentsWebhookFailureRatioHigh',
    'PaymentsWorkflowsParked',
    'PaymentsHttp5xxRatioHigh',
    'PaymentsProviderErrorRatioHigh',
    'PaymentsPostgresUnreachable',
    'PaymentsTemporalUnreachable',
  ])
    expect(names).toContain(a);
});

test('the dashboard is a Grafana dashboard whose every query parses', () => {
  expect(dashboardExprs.length).toBeGreaterThanOrEqual(20);
  for (const { expr } of dashboardExprs) expect(metricNames(expr).length).toBeGreaterThan(0);
});

/** The metric families a scrape of the product announces (`# TYPE`); a histogram `x` also exports x_bucket, x_sum and x_count. */
async function exportedFamilies(): Promise<Set<string>> {
  const res = await fetch(`${process.env.TEST_API_URL}/metrics`, { headers: { Authorization: `Bearer ${process.env.METRICS_TOKEN}` } });
  expect(res.status).toBe(200);
  const exported = new Set<string>();
  for (const m of (await res.text()).matchAll(/^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (\w+)$/gm)) {
    exported.add(m[1]);
    if (m[2] === 'histogram' || m[2] === 'summary') for (const s of ['_bucket', '_sum', '_count']) exported.add(`${m[1]}${s}`);
  }
  return exported;
}

test('every metric the alerts and the dashboard name is exported by the product', async () => {
  // The SDK exports a worker metric once it has something to say: a workflow and its activities run first.
  const merchant = client((await newAccount()).live_key);
  const link = expectOk(
    await merchant.post('/v1/payment_links', {
      amount: { amount: '1000', currency: 'USD', decimals: 2 },
      title: 'Monitoring',
      accepted_rail_kinds: ['crypto'],
    }),
    201,
  );
  expectOk(await merchant.post(`/v1/payment_links/${link.id}/activate`, { attestation_accepted: true }));
  const named = new Map<string, string>();
  for (const r of rules) for (const n of metricNames(r.expr)) named.set(n, `alert ${r.alert}`);
  for (const d of dashboardExprs) for (const n of metricNames(d.expr)) named.set(n, `panel ${d.panel}`);
  let missing: string[] = [];
  await eventually(
    async () => {
      const exported = await exportedFamilies();
      missing = [...named].filter(([n]) => !exported.has(n) && !PROMETHEUS_OWN.has(n)).map(([n, where]) => `${n} (${where})`);
      return missing.length === 0;
    },
    'every named metric in the scrape',
    20_000,
  ).catch(() => undefined);
  expect(missing).toEqual([]);
});
