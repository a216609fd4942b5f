/**
 * Feature switches and cohort flags (spec 1 "Operation status", rule 5; part 6 switches).
 * Stored in `feature_switches` (global) and `account_flags` (per-account cohort overrides), read
 * through an in-process cache. A process that calls `wireSwitchCache` (the API) trusts it for up to
 * 60 s while its LISTEN connection is up: every write to either table sends `switches_changed`
 * (migration 1764630000000), which empties it, so a flip reaches every instance when its commit's
 * notification arrives (docs/decisions/0079-pipeline-work-done-once.md). Otherwise
 * (the worker, scripts, a lost listener) entries live 2 s, so a flip reaches them within 2 s.
 * Flipped with the operator command `npm run switch -- <name> on|off [--account acct_...]`.
 */
import {
  cataloguedTypesOf,
  LIVE_EVENT_TYPES,
  eventFamily,
  SHIPPABLE_EVENT_FAMILIES,
  shipSwitchName,
  shippedEventTypes,
  UNWRITTEN_EVENT_TYPES,
  type ShippableEventFamily,
} from '../domain/event-types';
import { loadConfig } from './config';
import { auxDb, db } from './db';
import { accountWide } from './scoped';
import { notifyHealthy, onListenerLost, onNotify } from './notify';

/**
 * What the switch `events.ship.<family>` does (spec 6): the catalogued types it ships,
 * that the family's live types ship anyway, and which of its types this product never writes.
 */
export function shipSwitchDescription(shippableEventFamily: ShippableEventFamily): string {
  const types = cataloguedTypesOf(shippableEventFamily);
  const what =
    types.length === 1
      ? `the catalogued ${types[0]} event`
      : `the catalogued ${shippableEventFamily}.* events (${types.map((t) => t.slice(shippableEventFamily.length + 1)).join(', ')})`;
  const live = LIVE_EVENT_TYPES.some((t) => eventFamily(t) === shippableEventFamily)
    ? `; the live ${shippableEventFamily}.* events ship whatever this switch says`
    : '';
  const unwritten = types.filter((t) => UNWRITTEN_EVENT_TYPES.includes(t));
  const never =
    unwritten.length === 0
      ? ''
      : unwritten.length === types.length
        ? '; this product writes none of them (docs/decisions/0068-every-catalogued-family-ships-by-its-switch.md)'
        : `; ${unwritten.join(', ')} ${unwritten.length === 1 ? 'is' : 'are'} never written by this product (docs/decisions/0068-every-catalogued-family-ships-by-its-switch.md)`;
  return `Ship ${what}: listed in GET /events and the stream, delivered to webhooks (spec 6; off: recorded in the outbox only)${live}${never}.`;
}

/** Known switches and their defaults when no row exists. */
export const SWITCH_DEFAULTS: Record<string, { enabled: boolean; description: string; sandbox?: boolean }> = {
  test_mode: { enabled: true, description: 'Test-mode master switch (spec 1 rule 5).' },
  'api_v1.events': { enabled: true, description: 'Events API resource switch (spec 6).' },
  'api_v1.webhooks': { enabled: true, description: 'Webhook endpoint registration (spec 6).' },
  'api_v1.webhooks_delivery': { enabled: true, description: 'Webhook delivery (spec 6).' },
  'payment_links.crypto_only': { enabled: true, description: 'Product flag: crypto-only links settling to the service wallet (spec 2.3).' },
  'payment_links.crypto_xchain': { enabled: false, description: 'Launch flag: cross-network payer rail (spec 2.3, 4.6).' },
  'payment_links.native_via_provider': { enabled: false, description: 'Non-USD crypto-only links through a provider (spec 4.1).' },
  'payouts.enabled': { enabled: true, description: 'Payout corridors executable at all (spec 4.3, 4.6 blocked_reason payouts_disabled).' },
  'payroll.require_verified_customer': {
    enabled: false,
    description:
      'Cohort flag: an account without a customer record must verify one before funding payroll (spec 4.4 verification_required); an existing customer that is not approved always blocks funding.',
  },
  'payroll.crypto_funding': {
    enabled: true,
    description: 'Product flag: payroll runs funded by a USDC deposit (spec 4.4, 4.6 crypto_funding).',
  },
  'payouts.preview_corridors': {
    enabled: true,
    description: 'Launch flag: preview payout corridors (brl_pix, mxn_spei) executable (spec 4.6).',
  },
  'legal.terms_acceptance': {
    enabled: false,
    description:
      'Terms acceptance gate (spec 1 rule 6): money boundaries need the current terms accepted by a person; off until enabled (globally or per account cohort).',
  },
  'api_v1.customers': { enabled: true, description: 'Customers resource switch (spec 4.7; off: 503).' },
  'customers.enabled': {
    enabled: false,
    sandbox: true,
    description: 'Dark-flag: customers (spec 4.7); open on sandbox (dev and test) stacks, closed elsewhere unless a cohort opens it.',
  },
  'api_v1.eligibility': {
    enabled: false,
    sandbox: true,
    description: 'Dark-flag: public GET /eligibility (spec 4.6); open on sandbox (dev and test) stacks, closed (503) in production.',
  },
  'api_v1.offramp': {
    enabled: true,
    description: 'Off-ramp resource switch: quotes, external accounts, off-ramp intents (spec 4.5; off: 503).',
  },
  'wallet.offramp': {
    enabled: false,
    sandbox: true,
    description:
      'Dark-flag: off-ramp from the wallet to a bank (spec 4.5); open in sandbox (dev and test) stacks, closed elsewhere unless a cohort opens it.',
  },
  'api_v1.virtual_accounts': { enabled: true, description: 'Virtual accounts resource switch (spec 4.5; off: 503).' },
  'wallet.virtual_accounts': {
    enabled: false,
    sandbox: true,
    description:
      'Dark-flag: virtual accounts funding the wallet (spec 4.5); open in sandbox (dev and test) stacks, closed elsewhere unless a cohort opens it.',
  },
  ...Object.fromEntries(
    SHIPPABLE_EVENT_FAMILIES.map((f) => [shipSwitchName(f), { enabled: false, description: shipSwitchDescription(f) }]),
  ),
};

/**
 * The event types shipped to `accountId` now: the live ones plus the catalogued types of every
 * family whose `events.ship.<family>` switch is on (globally, or for the account's cohort; cached
 * like every flag). One after the other: the first look fills the caches, so a cold account costs
 * one query of its flags (and one of the global switches), not one per family.
 */
export async function currentShippedEventTypes(accountId: string): Promise<readonly string[]> {
  const on: ShippableEventFamily[] = [];
  for (const f of SHIPPABLE_EVENT_FAMILIES) if (await isFlagOpen(shipSwitchName(f), accountId)) on.push(f);
  return shippedEventTypes(on);
}

const TTL_MS = 2000;
const NOTIFIED_TTL_MS = 60_000;
let cache: { at: number; global: Map<string, boolean> } | null = null;
const accountCache = new Map<string, { at: number; flags: Map<string, boolean> }>();
/** Bumped by every clear: a read that started before one never fills the cache (it may hold the old value). */
let generation = 0;
let wired = false;

/** How long a cached value is trusted now: 60 s while `switches_changed` is heard, else 2 s. */
const ttl = () => (wired && notifyHealthy() ? NOTIFIED_TTL_MS : TTL_MS);

/**
 * Empties this process's switch cache on every `switches_changed` notification and whenever the
 * LISTEN connection drops (notifications sent meanwhile are lost); call once the notify listener
 * runs (api/main.ts). Idempotent.
 */
export async function wireSwitchCache(): Promise<void> {
  if (wired) return;
  wired = true;
  onListenerLost(clearSwitchCache);
  await onNotify('switches_changed', clearSwitchCache);
}

async function globalSwitches(): Promise<Map<string, boolean>> {
  const now = Date.now();
  if (cache && now - cache.at < ttl()) return cache.global;
  const since = generation;
  const { rows } = await auxDb().query<{ name: string; enabled: boolean }>('SELECT name, enabled FROM feature_switches');
  const m = new Map<string, boolean>();
  for (const r of rows) m.set(r.name, r.enabled);
  if (since === generation) cache = { at: now, global: m };
  return m;
}

/**
 * The default of switch `name` when no row sets it: SWITCH_DEFAULTS' `enabled`, or its `sandbox`
 * value on a stack with the simulator (dev and test stacks: dark-flags open there), else off.
 */
export function switchDefault(name: string): boolean {
  const d = SWITCH_DEFAULTS[name];
  if (!d) return false;
  return d.sandbox !== undefined && loadConfig().simulatorEnabled ? d.sandbox : d.enabled;
}

/** Whether a global switch is on (default: switchDefault). */
export async function isSwitchOn(name: string): Promise<boolean> {
  const g = await globalSwitches();
  return g.get(name) ?? switchDefault(name);
}

/** Whether a flag is open for an account: its cohort override if any, else the global switch. */
export async function isFlagOpen(name: string, accountId: string): Promise<boolean> {
  const now = Date.now();
  let entry = accountCache.get(accountId);
  if (!entry || now - entry.at >= ttl()) {
    const since = generation;
    const own = accountWide(accountId).sql(null, 1);
    const { rows } = await auxDb().query<{ name: string; enabled: boolean }>(
      `SELECT name, enabled FROM account_flags WHERE ${own.where}`,
      own.params,
    );
    entry = { at: now, flags: new Map(rows.map((r) => [r.name, r.enabled])) };
    if (since === generation) {
      if (accountCache.size >= 10000) accountCache.clear();
      accountCache.set(accountId, entry);
    }
  }
  const own = entry.flags.get(name);
  if (own !== undefined) return own;
  return isSwitchOn(name);
}

/** Sets a global switch or an account's cohort flag; clears this process's cache. */
export async function setSwitch(name: string, enabled: boolean, accountId?: string): Promise<void> {
  if (accountId) {
    await db().query(
      `INSERT INTO account_flags(account_id, name, enabled, updated_at) VALUES ($1,$2,$3,now())
       ON CONFLICT (account_id, name) DO UPDATE SET enabled = EXCLUDED.enabled, updated_at = now()`,
      [accountId, name, enabled],
    );
  } else {
    await db().query(
      `INSERT INTO feature_switches(name, enabled, description, updated_at) VALUES ($1,$2,$3,now())
       ON CONFLICT (name) DO UPDATE SET enabled = EXCLUDED.enabled, updated_at = now()`,
      [name, enabled, SWITCH_DEFAULTS[name]?.description ?? null],
    );
  }
  clearSwitchCache();
}

/** Drops cached switch values (after a flip, in tests). */
export function clearSwitchCache(): void {
  generation += 1;
  cache = null;
  accountCache.clear();
}
