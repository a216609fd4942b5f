/**
 * The one factory of a new payment row (spec 2.4): a link's attempt on any rail
 * (native, transfer, cross-network, bank) and a subscription invoice's pay-in are all built here,
 * `awaiting`, with nothing received, no verdict flags set and every column of the other rails
 * blank (blank-columns.ts), so each row carries every column as the database will hold it.
 * Amounts are minor-unit strings: USDC (6 decimals) on the crypto rails, the link currency on a
 * bank rail. Building only: the caller saves the row in its transaction (ledger.ts `saveNewPayment`
 * for a link's attempt).
 */
import type { EntityManager } from 'typeorm';
import { Payment, type PaymentLink, type Subscription } from '../../entities';
import type { IssuedCollection } from '../../providers/bank-collection';
import { chainAdapter } from '../../providers/chain';
import { NO_BANK_FIELDS, NO_XCHAIN_FIELDS } from './blank-columns';

/** Stablecoin decimals of every crypto-rail payment (USDC). */
const STABLECOIN_DECIMALS = 6;

/** What the payer sends on, and what the rail adds to the row. */
export type NewPaymentRail =
  /** `crypto_native`: USDC on the service chain to the payment's own deposit address. */
  | { kind: 'crypto_native' }
  /** `crypto_transfer`: the same deposit, from `sourceChain` (and the payer's declared `sourceAddress`). */
  | { kind: 'crypto_transfer'; sourceChain: string; sourceAddress: string | null }
  /**
   * `crypto_xchain`: `stablecoin` on `network` to the bridge's `depositAddress`; the bridge delivers
   * to `deliveryAddress` on the service chain. `amountIn` = what the payer sends (gross of `bridgeFee`).
   */
  | {
      kind: 'crypto_xchain';
      network: string;
      stablecoin: string;
      depositAddress: string;
      deliveryAddress: string;
      refundAddress: string;
      bridgeTransferId: string;
      amountIn: string;
      bridgeFee: string;
      quoteExpiresAt: Date;
    }
  /** A bank rail: the collection provider's receiving details, in the link's `currency`; `settlementRail` of a bank destination. */
  | {
      kind: 'bank';
      rail: string;
      currency: string;
      decimals: number;
      issued: IssuedCollection;
      payerState: string | null;
      settlementRail: string | null;
    };

/** A new payment's parts (amounts: minor-unit strings). */
export interface NewPayment {
  /** The `pay_` id, minted by the caller (a provider may already know it as its client reference). */
  id: string;
  /** What it pays: a payment link or a subscription (its invoice); the row takes its account and mode. */
  of:
    { link: Pick<PaymentLink, 'id' | 'account_id' | 'livemode'> } | { subscription: Pick<Subscription, 'id' | 'account_id' | 'livemode'> };
  rail: NewPaymentRail;
  /** The frozen total due: the invoice, the payer fee, their sum (`amount_expected_minor`). */
  due: { invoice: string; fee: string; total: string };
  /** Where it settles: `wallet` (to `settlementAddress`), `bank` (the destination's bank rail), or null (the provider keeps it). */
  settlement: 'wallet' | 'bank' | null;
  settlementAddress: string | null;
  payerEmail: string | null;
  payerType: string | null;
  /** End of the deposit window. */
  expiresAt: Date;
}

/** The rail-specific columns of `r` for payment `id` (deposit side, currency, and the bank or cross-network columns). */
function railColumns(id: string, r: NewPaymentRail): Partial<Payment> {
  const chain = chainAdapter();
  switch (r.kind) {
    case 'crypto_native':
    case 'crypto_transfer':
      return {
        payment_rail: r.kind,
        source_chain: r.kind === 'crypto_native' ? chain.chain : r.sourceChain,
        stablecoin: chain.stablecoin,
        source_asset: chain.stablecoin,
        deposit_address: chain.depositAddress(id),
        deposit_chain: chain.chain,
        currency: chain.stablecoin,
        decimals: STABLECOIN_DECIMALS,
        ...NO_BANK_FIELDS,
        ...NO_XCHAIN_FIELDS,
        ...(r.kind === 'crypto_transfer' ? { source_address: r.sourceAddress } : {}),
      };
    case 'crypto_xchain':
      return {
        payment_rail: r.kind,
        source_chain: r.network,
        stablecoin: r.stablecoin,
        source_asset: r.stablecoin,
        deposit_address: r.depositAddress,
        deposit_chain: r.network,
        currency: chain.stablecoin,
        decimals: STABLECOIN_DECIMALS,
        ...NO_BANK_FIELDS,
        delivery_chain: chain.chain,
        delivery_address: r.deliveryAddress,
        refund_address: r.refundAddress,
        source_address: null,
        bridge_transfer_id: r.bridgeTransferId,
        amount_in_minor: r.amountIn,
        bridge_fee_minor: r.bridgeFee,
        quote_expires_at: r.quoteExpiresAt,
        gross_up: true,
        watcher_state: 'address_issued',
        watcher_reason: null,
        recovery_tx_hash: null,
      };
    case 'bank':
      return {
        payment_rail: r.rail,
        source_chain: null,
        stablecoin: null,
        source_asset: null,
        deposit_address: null,
        deposit_chain: null,
        currency: r.currency,
        decimals: r.decimals,
        ...NO_BANK_FIELDS,
        bank_instructions: r.issued.instructions,
        bank_reference: r.issued.reference,
        bank_account_key: r.issued.accountKey,
        payer_state: r.payerState,
        settlement_rail: r.settlementRail,
        ...NO_XCHAIN_FIELDS,
      };
  }
}

/**
 * The new `awaiting` payment `p` describes (not saved): nothing received, no surplus, no verdict
 * flags, no settlement or on-chain transaction yet, not marked sent, not paid or settled.
 */
export function newPaymentRow(manager: EntityManager, newPayment: NewPayment): Payment {
  const owner = 'link' in newPayment.of ? newPayment.of.link : newPayment.of.subscription;
  return manager.create(Payment, {
    id: newPayment.id,
    account_id: owner.account_id,
    livemode: owner.livemode,
    payment_link_id: 'link' in newPayment.of ? newPayment.of.link.id : null,
    subscription_id: 'subscription' in newPayment.of ? newPayment.of.subscription.id : null,
    status: 'awaiting',
    ...railColumns(newPayment.id, newPayment.rail),
    invoice_minor: newPayment.due.invoice,
    fee_minor: newPayment.due.fee,
    amount_expected_minor: newPayment.due.total,
    amount_received_minor: '0',
    surplus_minor: null,
    last_short_deposit_minor: null,
    unmatched_reason: null,
    underpaid_emitted: false,
    overpaid_emitted: false,
    settlement: newPayment.settlement,
    settlement_address: newPayment.settlementAddress,
    settlement_tx_hash: null,
    payer_email: newPayment.payerEmail,
    payer_type: newPayment.payerType,
    marked_sent_at: null,
    onchain_tx_hash: null,
    expires_at: newPayment.expiresAt,
    paid_at: null,
    settled_at: null,
  });
}
