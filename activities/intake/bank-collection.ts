/**
 * Intake of the inbound collection provider's reports (providers/bank-collection.ts): a bank
 * credit arrived (`ProviderCredit`: `bcp_` id, rail, currency, `amount` in minor units, reference,
 * `to_account`, `client_reference` the provider matched it to by account or reference, `state`
 * received|returned) or the sending bank returned one (`state: returned`, `return_reason`).
 *
 * | report          | object (spec)                                                   | command                                  |
 * | credit received | a bank payment's deposit (2.4; `pay_` reference)               | `recordBankCredit` (payments)            |
 * | credit received | a wallet virtual account's credit (4.5; `va_` reference)       | `recordVirtualAccountCredit` (wallet)    |
 * | credit returned | the payment's credit, returned (2.4 `return_reason`)           | `recordBankReturn` (payments)            |
 *
 * A payroll run's funding credit (4.4, matched by the run's reference) is not handed over: the
 * run's funding poll reads the provider's credits itself. Every command is idempotent by the
 * provider's credit id, so a redelivered report changes nothing.
 */
import { currencyDecimals } from '../../domain/money';
import { recordBankCredit, recordBankReturn } from '../payments/bank-commands';
import { recordVirtualAccountCredit } from '../virtual-accounts/commands';
import { SANDBOX_RETURN_TEXT, type ProviderCredit } from '../../providers/bank-collection';

/**
 * The provider reports credit `credit` received (a real provider's credit notification, or the
 * simulator's `POST /sim/bank/credits`): records it against its payment (a credit of another rail
 * or matching nothing is recorded unmatched), applies a return at once when the provider already
 * reports it returned, and records it against its virtual account when it is one's. Returns the
 * payment it was matched to (`paymentId`, null when none).
 */
export async function receiveBankCredit(credit: ProviderCredit): Promise<{ paymentId: string | null }> {
  const decimals = currencyDecimals(credit.currency);
  const { paymentId } = await recordBankCredit(credit, decimals);
  if (credit.state === 'returned') await recordBankReturn(credit.id, credit.return_reason ?? SANDBOX_RETURN_TEXT);
  // A virtual account's credit (its workflow sees a credit returned at once as returned).
  await recordVirtualAccountCredit(credit, decimals);
  return { paymentId };
}

/**
 * The provider reports that the sending bank returned credit `credit` (a real provider's return
 * notification, or the simulator's `POST /sim/bank/credits/{id}/return`): records the return
 * (`return_reason`, provider text) and wakes the payment's workflow to apply it. Returns the payment
 * the credit was matched to (`paymentId`, null when none or the credit is unknown here).
 */
export async function receiveBankReturn(credit: ProviderCredit): Promise<{ paymentId: string | null }> {
  const { paymentId } = await recordBankReturn(credit.id, credit.return_reason ?? SANDBOX_RETURN_TEXT);
  return { paymentId };
}
