/**
 * Intake of the chain's reports (providers/chain.ts): a transfer confirmed on a chain
 * (`ObservedTransfer`: chain, asset, from and to address, `amount` in minor units, decimals,
 * `tx_hash`).
 *
 * | to address                                  | object (spec)                      | command / notifier                                    |
 * | a payment's deposit or delivery address     | a payment's deposit (2.4)          | `recordObservedTransfer` (payments), via the watcher  |
 * | a payout attempt's funding address          | a payout deposit (2.6)             | `recordObservedTransfer` -> `recordPayoutTransfer`    |
 * | an off-ramp intent's transit address        | the off-ramp intent (4.5)          | `recordObservedTransfer` -> `notifyOfframpTransfer`   |
 * | a wallet deposit intent's deposit address   | the deposit intent (4.5)           | `receiveChainTransfer` -> `notifyDepositIntentTransfer` |
 *
 * The first three reach their objects through the chain adapter's listener (`onTransfer`, wired
 * once per API process by activities/payments/watcher.ts `wireChainWatcher`), called as the
 * adapter confirms a transfer. A deposit intent's workflow reads the chain itself: the report
 * only wakes it, through `receiveChainTransfer` once the transfer is confirmed.
 */
import { notifyDepositIntentTransfer } from '../deposit-intents/signals';
import type { ObservedTransfer } from '../../providers/chain';

/**
 * The chain reports transfer `transfer` confirmed (a chain indexer's callback after the adapter
 * reported it to its listeners, or the simulator's `POST /sim/chain/transfers` and
 * `/sim/chain/transfers/{tx_hash}/confirm`): wakes every wallet deposit intent whose deposit
 * address on that chain received it (any case). Nothing for another address.
 */
export async function receiveChainTransfer(transfer: Pick<ObservedTransfer, 'chain' | 'to_address'>): Promise<void> {
  await notifyDepositIntentTransfer(transfer);
}
