/**
 * Intake of the reconciliation signal (spec 2.6: a payout's `needs_attention` is derived from an
 * internal reconciliation signal): the report names a payout (`po_` id) and whether its settlement
 * needs checking (`needs_attention`).
 *
 * | report                           | object (spec)     | notifier                       |
 * | `{ payout_id, needs_attention }` | the payout (2.6)  | `signalPayoutReconciliation`   |
 */
import { signalPayoutReconciliation } from '../payouts/signals';

/**
 * Reconciliation reports on payout `payoutId` (a reconciliation job, or the simulator's
 * `POST /sim/providers/reconciliation`): the payout's workflow sets `needs_attention` to
 * `needsAttention`. Returns false when there is no such payout.
 */
export async function receiveReconciliationReport(payoutId: string, needsAttention: boolean): Promise<boolean> {
  return signalPayoutReconciliation(payoutId, needsAttention);
}
