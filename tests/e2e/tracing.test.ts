/**
 * Traces (issue 29 item 2; docs/decisions/0083-tracing.md): a private stack runs with the standard
 * OpenTelemetry environment pointing at an OTLP/HTTP JSON receiver in this test (the in-memory span
 * exporter: it keeps every span it is sent). One request, `POST /v1/payouts/{id}/funding_instructions`,
 * starts the payout workflow (signal-with-start), whose activity creates the provider transfer and
 * writes `payout.funded`; the webhook endpoint's drain delivers it to a receiver here. The spans of
 * all of it share one trace: the request's server span, the Temporal client span, RunWorkflow,
 * StartActivity, RunActivity, the database spans, the delivery span and its HTTP client span, each
 * span's parent in the same trace. The product's log lines for the request carry its trace id and
 * request id, and the webhook POST carries the trace's `traceparent`. The payout is then cancelled:
 * a workflow's RunWorkflow span is exported when its run ends.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { client, connectDb, eventually, expectOk, newAccount } from '../helpers/api';
import { Receiver } from '../helpers/receiver';
import { startTestStack } from '../helpers/stack';

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
interface CollectedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  service: string;
  attributes: Record<string, string | number | boolean | undefined>;
}

/** Trace and span ids of the JSON encoding are hex (the JS exporter), base64 in other encoders: hex either way. */
function hexId(id: string | undefined): string {
  if (!id) return '';
  return /^[0-9a-f]+$/i.test(id) ? id.toLowerCase() : Buffer.from(id, 'base64').toString('hex');
}

function attrs(list: Array<{ key: string; value: OtlpValue }> | undefined): CollectedSpan['attributes'] {
  const out: CollectedSpan['attributes'] = {};
  for (const a of list ?? [])
    out[a.key] =
      a.value.stringValue ?? (a.value.intValue !== undefined ? Number(a.value.intValue) : (a.value.boolValue ?? a.value.doubleValue));
  return out;
}

/** A minimal OTLP/HTTP (JSON) trace receiver keeping every span in memory. */
class SpanCollector {
  readonly spans: CollectedSpan[] = [];
  readonly server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        for (const rs of body.resourceSpans ?? []) {
          const service = String(attrs(rs.resource?.attributes)['service.name'] ?? '');
          for (const ss of rs.scopeSpans ?? []) {
            for (const s of ss.spans ?? []) {
              this.spans.push({
                traceId: hexId(s.traceId),
                spanId: hexId(s.spanId),
                parentSpanId: hexId(s.parentSpanId),
                name: s.name,
                kind: s.kind,
                service,
                attributes: attrs(s.attributes),
              });
            }
          }
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      } catch {
        res.writeHead(400).end();
      }
    });
  });

  url = '';

  async start(): Promise<void> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1/traces`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }

  trace(traceId: string): CollectedSpan[] {
    return this.spans.filter((s) => s.traceId === traceId);
  }
}

const collector = new SpanCollector();
const receiver = new Receiver();
let stopStack: (() => Promise<void>) | null = null;
let productLog = '';

beforeAll(async () => {
  await collector.start();
  await receiver.start();
  const stack = await startTestStack('tracing', (m) => process.stderr.write(`[tracing] ${m}\n`), {
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: collector.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '200',
    LOG_LEVEL: 'debug',
  });
  stopStack = stack.stop;
  stack.apply(process.env);
  productLog = stack.productLog;
  await connectDb();
}, 240_000);

afterAll(async () => {
  await stopStack?.();
  await receiver.stop();
  await collector.stop();
}, 60_000);

test('one trace follows a request into its workflow, activity, database calls and the webhook it causes', async () => {
  const acct = await newAccount();
  const key = client(acct.live_key);
  const session = client(acct.session_token);
  const target = receiver.path('traced');
  expectOk(await key.post('/v1/webhook_endpoints', { url: target.url, description: 'traced' }), 201);
  const p = expectOk(
    await key.post('/v1/payouts', { invoice_amount: { amount: '100000', currency: 'USD', decimals: 2 }, corridor_id: 'usd_ach' }),
    201,
  );
  expectOk(
    await key.post(`/v1/payouts/${p.id}/beneficiary`, {
      account_owner_type: 'business',
      account_holder_name: 'Supplier LLC',
      account_number: '123456789',
      routing_number: '021000021',
    }),
  );
  const fund = await session.post(`/v1/payouts/${p.id}/funding_instructions`, { source_chain: 'base' });
  expectOk(fund);
  const requestId = fund.headers.get('request-id')!;
  expect(requestId).toMatch(/^req_/);

  // The webhook the request caused (written by the workflow's activity), and its traceparent.
  const delivery = await eventually(
    async () => receiver.received(target.path).find((r) => JSON.parse(r.body).type === 'payout.funded'),
    'payout.funded delivered',
    60_000,
  );
  const server = await eventually(
    async () => collector.spans.find((s) => s.attributes['payments.request_id'] === requestId),
    'the request span exported',
    30_000,
  );
  const traceId = server.traceId;
  expect(delivery.headers.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-0[01]$`));

  // A workflow's RunWorkflow span ends (and is exported) when its run ends: cancelling the payout ends it.
  expectOk(await key.post(`/v1/payouts/${p.id}/cancel`));
  let missing: string[] = [];
  const named = (pred: (s: CollectedSpan) => boolean) => collector.trace(traceId).find(pred);
  const spans = await eventually(
    async () => {
      const want = {
        server,
        start: named((s) => /^(SignalWithStartWorkflow|StartWorkflow):payoutWorkflow$/.test(s.name)),
        workflow: named((s) => s.name === 'RunWorkflow:payoutWorkflow'),
        startActivity: named((s) => s.name === 'StartActivity:ensureProviderTransfer'),
        activity: named((s) => s.name === 'RunActivity:ensureProviderTransfer'),
        pg: named((s) => s.attributes['db.system'] === 'postgresql'),
        deliver: named((s) => s.name === 'webhook.deliver' && s.attributes['payments.event_id'] === JSON.parse(delivery.body).id),
        post: named((s) => s.kind === 3 /* CLIENT */ && String(s.attributes['url.full'] ?? '').includes(target.path)),
      };
      missing = Object.entries(want)
        .filter(([, v]) => !v)
        .map(([k]) => k);
      return missing.length === 0 ? (want as { [K in keyof typeof want]: CollectedSpan }) : null;
    },
    'every span of the journey in the request trace',
    30_000,
  ).catch((e) => {
    const seen = collector
      .trace(traceId)
      .map((s) => `${s.name} (${s.service}, kind ${s.kind}, parent ${s.parentSpanId || '-'}, id ${s.spanId})`);
    throw new Error(`${String(e)}; missing ${missing.join(', ')}; the trace has:\n${seen.join('\n')}`);
  });

  // The server span is the root: the request came without a traceparent.
  expect(spans.server.parentSpanId).toBe('');
  expect(spans.server.kind).toBe(2 /* SERVER */);
  expect(spans.server.name).toBe('POST /v1/payouts/:id/funding_instructions');
  expect(spans.server.attributes['http.route']).toBe('/v1/payouts/:id/funding_instructions');

  // The parent chain: webhook POST -> delivery -> activity -> ... -> workflow -> client start -> server span.
  const byId = new Map(collector.trace(traceId).map((s) => [s.spanId, s]));
  const ancestors = (s: CollectedSpan): string[] => {
    const chain: string[] = [];
    for (let cur: CollectedSpan | undefined = s; cur?.parentSpanId; cur = byId.get(cur.parentSpanId)) {
      const parent = byId.get(cur.parentSpanId);
      expect(parent).toBeDefined(); // every parent is a span of the same trace
      chain.push(parent!.spanId);
    }
    return chain;
  };
  expect(byId.get(spans.post.parentSpanId)).toBe(spans.deliver);
  expect(byId.get(spans.deliver.parentSpanId)).toBe(spans.activity);
  expect(byId.get(spans.activity.parentSpanId)).toBe(spans.startActivity);
  expect(ancestors(spans.startActivity)).toContain(spans.workflow.spanId);
  expect(byId.get(spans.workflow.parentSpanId)).toBe(spans.start);
  expect(ancestors(spans.start)).toContain(spans.server.spanId);
  expect(ancestors(spans.pg).length).toBeGreaterThan(0);
  for (const s of collector.trace(traceId)) ancestors(s);

  // The product's log lines for the request name its trace and request.
  const lines = fs
    .readFileSync(productLog, 'utf8')
    .split('\n')
    .filter((l) => l.includes(requestId))
    .map((l) => JSON.parse(l));
  expect(lines.length).toBeGreaterThan(0);
  for (const l of lines) expect({ request_id: l.request_id, trace_id: l.trace_id }).toEqual({ request_id: requestId, trace_id: traceId });
}, 180_000);
