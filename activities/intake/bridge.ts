/**
 * Intake of the pay-in bridge's reports (providers/bridge.ts `SandboxPayInBridge`): a bridge
 * transfer moved (`PayInProgress` with the transfer's `id` and `client_reference`: `state`
 * awaiting_funds|in_flight|delivered|failed, running totals `received` and `delivered` in minor
 * units, and `delivery`, the transfer the bridge just made on the destination chain, if any).
 *
 * | client reference | object (spec)                                | command / notifier                                  |
 * | (any, delivery)  | the delivery on the destination chain        | `recordObservedTransfer` (payments: a deposit)      |
 * | `pay_...`        | a cross-network payment's pay-in (2.4)       | `signalBridgeUpdate` (its watcher re-reads)         |
 * | `wsi_...`        | a cross-chain send intent (4.5)              | `notifySendIntentBridgeUpdate`                      |
 * | `dpi_...`        | a wallet deposit intent's pay-in (4.5)       | `notifyDepositIntentUpdate`                         |
 */
import { signalBridgeUpdate } from '../payments/signals';
import { recordObservedTransfer } from '../payments/watcher';
import { notifyDepositIntentUpdate } from '../deposit-intents/signals';
import { notifySendIntentBridgeUpdate } from '../send-intents/signals';
import type { PayInProgress } from '../../providers/bridge';

/** What intake reads of a bridge transfer's report: its delivery, if any, and the client reference we created the transfer with. */
export type BridgeTransferReport = Pick<PayInProgress, 'delivery'> & { client_reference: string };

/**
 * The bridge reports that transfer `report` moved (a real bridge's status callback, or the
 * simulator's `POST /sim/bridge/transfers/{id}`): records its delivery (USDC, 6 decimals) as a
 * transfer seen on the destination chain, then wakes the cross-network payment, else the send
 * intent, and the deposit intent its client reference names.
 */
export async function receiveBridgeTransferReport(report: BridgeTransferReport): Promise<void> {
  if (report.delivery) await recordObservedTransfer({ ...report.delivery, decimals: 6 });
  if (!(await signalBridgeUpdate(report.client_reference))) await notifySendIntentBridgeUpdate(report.client_reference);
  await notifyDepositIntentUpdate(report.client_reference);
}
