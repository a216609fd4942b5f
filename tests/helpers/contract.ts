/**
 * Contract-test helpers shared by the fuzzing run (tests/contract/fuzz.test.ts) and the
 * authorization matrix (tests/api/authz-matrix.test.ts): real objects of one account, addressed by
 * the path parameters of the operation registry's path templates, so calls reach past the 404.
 */
import { transaction } from '../../lib/db';
import { insertApiKey, type DevCredentials } from '../../activities/accounts';
import { call, client, eventually } from './api';
import type { Receiver } from './receiver';

/** Real ids of one account: by first path segment (for `{id}`) and by parameter name. */
export interface AccountObjects {
  byResource: Record<string, string[]>;
  byParam: Record<string, string[]>;
}

function expectStatus(res: { status: number; body: unknown }, status: number, what: string): any {
  if (res.status !== status) throw new Error(`${what}: expected ${status}, got ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/**
 * Creates, through the API with `creds.live_key`, one object of each implemented resource: a
 * client, a product, a draft and an active crypto-only link (with a payer payment), a webhook
 * endpoint on `receiver` with a test delivery; plus a spare API key (safe to roll or revoke).
 */
export async function createAccountObjects(creds: DevCredentials, receiver: Receiver): Promise<AccountObjects> {
  const k = client(creds.live_key);
  const usd = (amount: string) => ({ amount, currency: 'USD', decimals: 2 });
  const cli = expectStatus(await k.post('/v1/clients', { display_name: 'Contract client', email: 'contract@example.com' }), 201, 'client');
  const prd = expectStatus(await k.post('/v1/products', { name: 'Contract product', unit_price: usd('500') }), 201, 'product');
  const draft = expectStatus(await k.post('/v1/payment_links', { amount: usd('2500'), title: 'Contract draft', client_id: cli.id }), 201, 'draft link');
  const cryptoDraft = expectStatus(await k.post('/v1/payment_links', { amount: usd('10000'), title: 'Contract crypto', accepted_rail_kinds: ['crypto'] }), 201, 'crypto link');
  const active = expectStatus(await k.post(`/v1/payment_links/${cryptoDraft.id}/activate`, { attestation_accepted: true }), 200, 'activate');
  const token = String(active.url).split('/').pop()!;
  const pay = expectStatus(await call('POST', `/v1/payment_sessions/${token}/payments`, { rail: 'crypto_native' }, { idem: null }), 201, 'payer payment');
  const hook = receiver.path('contract');
  const whe = expectStatus(await k.post('/v1/webhook_endpoints', { url: hook.url, description: 'contract' }), 201, 'webhook endpoint');
  const whd = expectStatus(await k.post(`/v1/webhook_endpoints/${whe.id}/send_test_event`), 200, 'test event');
  const events: string[] = await eventually(async () => {
    const r = await k.get('/v1/events?limit=5');
    return r.status === 200 && r.body.data.length > 0 ? r.body.data.map((e: { id: string }) => e.id) : null;
  }, 'an event of the account');
  const wallets = expectStatus(await k.get('/v1/wallet/wallets'), 200, 'wallets').data.map((w: { id: string }) => w.id);
  const spare = await transaction((m) => insertApiKey(m, { accountId: creds.account_id, livemode: true, scopes: ['account.read'], name: 'contract spare' }));
  return {
    byResource: {
      payment_links: [active.id, draft.id], clients: [cli.id], products: [prd.id], payments: [pay.id],
      webhook_endpoints: [whe.id], webhook_deliveries: [whd.id], events, wallet: wallets, api_keys: [spare.key.id],
    },
    byParam: { token: [token], code: [active.short_code], payment_id: [pay.id] },
  };
}

/** Parameter names of an OpenAPI (`{x}`) or Koa (`:x`) path template. */
export function templateParams(template: string): string[] {
  return [...template.matchAll(/\{([^}]+)\}|:([A-Za-z0-9_]+)/g)].map((m) => m[1] ?? m[2]);
}

/** Real ids for each parameter of `template` (only those known), e.g. `{ id: ['pl_...'] }`. */
export function realIdsFor(template: string, objects: AccountObjects): Record<string, string[]> {
  const resource = template.split('/').filter(Boolean)[0];
  const out: Record<string, string[]> = {};
  for (const p of templateParams(template)) {
    const ids = objects.byParam[p] ?? (p === 'id' ? objects.byResource[resource] : undefined);
    if (ids?.length) out[p] = ids;
  }
  return out;
}
