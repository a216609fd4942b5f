/**
 * `POST /payment_sessions/{token}/pay_with_wallet` (spec 4.1): the payer pays a link from
 * a holder wallet on the native rail. Starts (or returns the live) native payment exactly as
 * `POST /payment_sessions/{token}/payments` with `rail: crypto_native` would, and builds the
 * unsigned ERC-20 transfer of exactly what is still due (the total due, less what an underpaid
 * payment already received; minor units of the stablecoin) from the payer's
 * wallet to the payment's deposit address. Nothing here signs: the payer's passkey does, outside
 * the API; once the signed transfer is on chain the payment's workflow judges it by the native
 * verdict rules like any other deposit.
 */
import { checkAddress } from '../../domain/addresses';
import { erc20TransferCall, type UnsignedEvmCall } from '../../domain/evm-calls';
import { conflict, invalidRequest } from '../../domain/errors';
import { LIVE_PAYMENT_STATUSES } from '../../domain/payments';
import type { Payment, PaymentLink } from '../../entities';
import { chainAdapter } from '../../providers/chain';
import { startPayerPayment } from './commands';
import type { Scope } from '../scope';

/**
 * Returns the native payment of `input.link` (the payer session's link, of `scope`) and the
 * transfer from `input.from_address` to sign. 400 `parameter_invalid` (param
 * `from_address`) for a malformed or zero address; `rail_not_allowed` when the native rail is not
 * payable; 409 `payment_link_not_payable`; 409 `payment_not_payable` when the live attempt no
 * longer waits for funds.
 */
export async function payWithWallet(
  scope: Scope,
  input: { link: PaymentLink; from_address: string; payer_email?: string; payer_type?: string },
): Promise<{ payment: Payment; created: boolean; transaction: UnsignedEvmCall }> {
  const chain = chainAdapter();
  const from = checkAddress('tempo', input.from_address, chain.network);
  if (!from.ok) throw invalidRequest('parameter_invalid', `from_address: ${from.reason}.`, 'from_address');
  const { payment, created } = await startPayerPayment(scope, {
    link: input.link,
    rail: 'crypto_native',
    payer_email: input.payer_email,
    payer_type: input.payer_type,
  });
  if (!payment.deposit_address || !LIVE_PAYMENT_STATUSES.includes(payment.status)) {
    throw conflict('payment_not_payable', `This payment is ${payment.status}; it takes no wallet payment.`, {
      payment_id: payment.id,
      status: payment.status,
    });
  }
  return {
    payment,
    created,
    transaction: erc20TransferCall({
      chain: chain.chain,
      chainId: chain.chainId,
      from: from.address,
      token: chain.tokenAddress,
      recipient: payment.deposit_address,
      amount: stillDue(payment),
    }),
  };
}

/** What the payment still needs: the total due less what arrived (an underpaid payment), in minor units. */
function stillDue(p: Payment): bigint {
  const owed = BigInt(p.amount_expected_minor) - BigInt(p.amount_received_minor);
  return owed > 0n ? owed : BigInt(p.amount_expected_minor);
}
