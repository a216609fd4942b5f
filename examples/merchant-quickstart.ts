/**
 * Merchant quickstart: the first thing a merchant's engineer copies. A typed client generated from
 * the served OpenAPI document (`npm run client:generate` -> examples/generated/api.d.ts, with
 * openapi-typescript) and openapi-fetch; compiled under `tsc --strict` (examples/tsconfig.json), no casts.
 *
 * It creates a client, a product and a crypto-only payment link for them, activates the link,
 * lists links with their summary, and reads the account's latest events. Every mutation carries
 * its own Idempotency-Key (spec 8): retrying a call with the same key can never repeat its effect.
 *
 * Run: API_URL=https://<host>/v1 API_KEY=sk_live_... node dist/examples/merchant-quickstart.js
 * Prints one line per step (`client cli_...`, `product prd_...`, `link pl_... draft`,
 * `activated pl_... active <payer url>`, `links N ...`, `event evt_... <type>`); exits 1 on an error.
 */
import { randomUUID } from 'node:crypto';
import createClient from 'openapi-fetch';
import type { paths } from './generated/api';

const baseUrl = process.env.API_URL ?? 'http://localhost:3000/v1';
const apiKey = process.env.API_KEY;
if (!apiKey) throw new Error('set API_KEY to a business key (sk_live_... or sk_test_...)');

const api = createClient<paths>({ baseUrl, headers: { 'x-api-key': apiKey } });

/** A fresh Idempotency-Key: 16 to 128 characters of [A-Za-z0-9_-]. */
const idempotencyKey = (): string => `quickstart-${randomUUID()}`;

/** The body of a successful call, or an Error carrying the API's error envelope. */
function ok<T>(result: { data?: T; error?: unknown; response: Response }, what: string): T {
  if (result.data === undefined) throw new Error(`${what}: HTTP ${result.response.status} ${JSON.stringify(result.error)}`);
  return result.data;
}

async function main(): Promise<void> {
  const client = ok(
    await api.POST('/clients', {
      params: { header: { 'Idempotency-Key': idempotencyKey() } },
      body: { display_name: 'Acme Corp', email: 'billing@acme.example' },
    }),
    'create client',
  );
  console.log(`client ${client.id} ${client.display_name}`);

  const product = ok(
    await api.POST('/products', {
      params: { header: { 'Idempotency-Key': idempotencyKey() } },
      body: { name: 'Consulting hour', unit_price: { amount: '15000', currency: 'USD', decimals: 2 } },
    }),
    'create product',
  );
  console.log(`product ${product.id} ${product.name}`);

  const draft = ok(
    await api.POST('/payment_links', {
      params: { header: { 'Idempotency-Key': idempotencyKey() } },
      body: {
        amount: { amount: '30000', currency: 'USD', decimals: 2 },
        title: 'Two consulting hours',
        client_id: client.id,
        accepted_rail_kinds: ['crypto'],
        items: [{ product_id: product.id, quantity: 2 }],
      },
    }),
    'create payment link',
  );
  console.log(`link ${draft.id} ${draft.status}`);

  const link = ok(
    await api.POST('/payment_links/{id}/activate', {
      params: { path: { id: draft.id }, header: { 'Idempotency-Key': idempotencyKey() } },
      body: { attestation_accepted: true },
    }),
    'activate payment link',
  );
  console.log(`activated ${link.id} ${link.status} ${link.url ?? ''}`);

  const links = ok(await api.GET('/payment_links', { params: { query: { limit: '10', expand: 'summary' } } }), 'list payment links');
  console.log(`links ${links.data.length} has_more=${links.has_more} summary=${JSON.stringify(links.summary ?? null)}`);

  const events = ok(await api.GET('/events', { params: { query: { limit: '5' } } }), 'list events');
  for (const event of events.data) console.log(`event ${event.id} ${event.type}`);
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
