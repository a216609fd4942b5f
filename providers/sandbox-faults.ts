/**
 * Sandbox fault switches (ARCHITECTURE.md "Simulator"): the outside world misbehaving on purpose
 * for ONE merchant's transfers, set through `POST /sim/providers/faults` `{ account_id, name, value }`
 * and read by the sandbox providers at call time with the account the call is made for. Faults are
 * scoped to an account (never global), so a test slowing the bridge for its own account cannot
 * slow any other account's payouts (jest runs test files in parallel against one stack). They are
 * kept in PostgreSQL so every process, including separately started workers, sees the same faults.
 *
 * Names: `bridge.create_delay_ms` (the bridge records a transfer, then answers that many ms late),
 * `wallet.close_fails` (`true`: unsigned wallet sends cannot be closed), `fiat_rails.submit_delay_ms` (the
 * fiat rail records a payment, then answers that many ms late), `offramp.refund_fails` (`true`: an
 * off-ramp's USDC cannot be sent back), `legal.registry_unavailable` (`true`: the terms acceptance registry
 * cannot be read), per quote provider `quotes.<provider>.latency_ms` (answer that many ms late) and
 * `quotes.<provider>.failure_rate` (0 to 1: the share of quote calls that fail), `orders.<provider>.unavailable`
 * (`true`: the provider's order API is out: placing or cancelling an order answers 503), `buy_sell.coverage`
 * (`cold` or `stale`: the buy/sell coverage snapshot is not usable, `GET /capabilities?product=buy_sell` 503).
 * The names, their values and effects are defined in providers/sandbox-values.ts (`FAULTS`).
 */
import { db } from '../lib/db';
import type { FaultName } from './sandbox-values';

/** A known fault name (the simulator refuses others), with its values and effects in providers/sandbox-values.ts `FAULTS`. */
export type { FaultName } from './sandbox-values';

/** The value of fault `name` for account `accountId`, or null when unset. */
export async function faultValue(accountId: string, name: FaultName): Promise<string | null> {
  const rows: Array<{ value: string }> = await db().query('SELECT value FROM sandbox_provider_faults WHERE account_id = $1 AND name = $2', [
    accountId,
    name,
  ]);
  return rows[0]?.value ?? null;
}

/** True when `accountId` names an account (faults are set per account). */
export async function faultAccountExists(accountId: string): Promise<boolean> {
  const rows: unknown[] = await db().query('SELECT 1 FROM accounts WHERE id = $1', [accountId]);
  return rows.length > 0;
}

/** Sets (value) or clears (null) fault `name` for account `accountId`. */
export async function setFault(accountId: string, name: FaultName, value: string | null): Promise<void> {
  if (value === null) {
    await db().query('DELETE FROM sandbox_provider_faults WHERE account_id = $1 AND name = $2', [accountId, name]);
    return;
  }
  await db().query(
    `INSERT INTO sandbox_provider_faults(account_id, name, value) VALUES ($1,$2,$3)
    ON CONFLICT (account_id, name) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
    [accountId, name, value],
  );
}

/** Every fault of `accountId` whose name starts with `prefix`, by name (one query). */
export async function faultValues(accountId: string, prefix: string): Promise<Map<string, string>> {
  const rows: Array<{ name: string; value: string }> = await db().query(
    'SELECT name, value FROM sandbox_provider_faults WHERE account_id = $1 AND starts_with(name, $2)',
    [accountId, prefix],
  );
  return new Map(rows.map((r) => [r.name, r.value]));
}
