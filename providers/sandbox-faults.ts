/**
 * Sandbox fault switches (ARCHITECTURE.md "Simulator"): the outside world misbehaving on purpose,
 * set through `/sim/providers/faults` and read by the sandbox providers at call time (kept in
 * PostgreSQL so every process, including separately started workers, sees the same faults).
 * Names: `bridge.create_delay_ms` (the bridge records a transfer, then answers that many ms late),
 * `wallet.close_fails` (`true`: unsigned wallet sends cannot be closed).
 */
import { db } from '../lib/db';

/** The value of fault `name`, or null when unset. */
export async function faultValue(name: string): Promise<string | null> {
  const rows: Array<{ value: string }> = await db().query('SELECT value FROM sandbox_provider_faults WHERE name = $1', [name]);
  return rows[0]?.value ?? null;
}

/** Sets (value) or clears (null) fault `name`. */
export async function setFault(name: string, value: string | null): Promise<void> {
  if (value === null) await db().query('DELETE FROM sandbox_provider_faults WHERE name = $1', [name]);
  else {
    await db().query(`INSERT INTO sandbox_provider_faults(name, value) VALUES ($1,$2)
      ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`, [name, value]);
  }
}

/** Known fault names (the simulator refuses others). */
export const FAULT_NAMES = Object.freeze(['bridge.create_delay_ms', 'wallet.close_fails'] as const);
