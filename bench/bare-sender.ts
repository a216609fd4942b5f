/**
 * The bare webhook sender of `npm run bench:webhooks` (issue 17): the same signed HTTPS POSTs the
 * product sends (Standard Webhooks headers, one JSON event envelope each), from a tight loop with
 * no database and no Temporal, as many requests in flight per endpoint as the drain activity
 * (activities/webhooks/drain.ts, BARE_CONCURRENCY). Run as its own process so that, as with the worker, the receiver
 * in the bench process does not share its event loop.
 * Env: BARE_URLS (comma-separated endpoint URLs), BARE_SECRET (whsec_...), BARE_EVENTS (per
 * endpoint), BARE_CA_FILE (PEM trusted for https), BARE_CONCURRENCY (default 32). Prints `{"ms": <n>}`.
 */
import fs from 'node:fs';
import { Agent, request } from 'undici';
import { Webhook } from 'standardwebhooks';

async function main(): Promise<void> {
  const urls = (process.env.BARE_URLS ?? '').split(',').filter(Boolean);
  const events = Number(process.env.BARE_EVENTS ?? 2000);
  const concurrency = Number(process.env.BARE_CONCURRENCY ?? 32);
  const signer = new Webhook(process.env.BARE_SECRET ?? '');
  const ca = process.env.BARE_CA_FILE ? fs.readFileSync(process.env.BARE_CA_FILE, 'utf8') : undefined;
  const agent = new Agent({ connections: concurrency, connect: ca ? { ca } : undefined });
  const started = performance.now();
  await Promise.all(
    urls.map(async (url) => {
      let next = 0;
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next < events) {
            const i = next++;
            const id = `evt_bare${String(i).padStart(8, '0')}`;
            const payload = JSON.stringify({
              id,
              object: 'event',
              type: 'order.created',
              created_at: new Date().toISOString(),
              livemode: true,
              api_version: '2026-09-04',
              sequence: i + 1,
              data: { object: { id: `ord_bench${i}`, object: 'order', status: 'created', type: 'order' } },
              request: { id: null, idempotency_key: null },
            });
            const at = new Date();
            const res = await request(url, {
              method: 'POST',
              dispatcher: agent,
              body: payload,
              headers: {
                'content-type': 'application/json',
                'user-agent': 'PaymentsPlatform-Webhooks/1.0',
                'webhook-id': id,
                'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
                'webhook-signature': signer.sign(id, at, payload),
              },
            });
            await res.body.text();
          }
        }),
      );
    }),
  );
  process.stdout.write(JSON.stringify({ ms: performance.now() - started }));
  await agent.close();
}

main().catch((e) => {
  process.stderr.write(String(e?.stack ?? e));
  process.exit(1);
});
