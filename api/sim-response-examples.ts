/**
 * What each `/sim` route answers to its documented request example (api/schemas/simulator.ts
 * `SIM_OPERATIONS[].example`), shown as the response example of `GET /sim/openapi.json`
 * (api/sim-openapi.ts; issue 38 point 7): the fields the route's handler writes
 * (api/routes/simulator.ts), with the example's own values. Keyed by the operation's id;
 * tests/api/sim-document.test.ts holds every route to one whose `object` is the route's.
 */
const ADDRESS = '0x52908400098527886e0f7030069857d2e4169ee7';
const PAYOUT = 'po_nZaihAeIJJdhkPoeuqqG2RZe';
const TX = '0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060';

export const SIM_RESPONSE_EXAMPLES: Readonly<Record<string, Record<string, unknown>>> = Object.freeze({
  'sim.chain.transfers.create': {
    object: 'sim.chain_transfer', chain: 'base', asset: 'USDC', from_address: '0x1aE0EA34a72D944a8C7603FfB3eC30a6669E454C', to_address: ADDRESS,
    amount: '125000000', decimals: 6, tx_hash: TX, status: 'confirmed',
  },
  'sim.chain.transfers.confirm': {
    object: 'sim.chain_transfer', chain: 'base', asset: 'USDC', from_address: '0x1aE0EA34a72D944a8C7603FfB3eC30a6669E454C', to_address: ADDRESS,
    amount: '125000000', decimals: 6, tx_hash: TX, status: 'confirmed',
  },
  'sim.bank.credits.create': {
    object: 'sim.bank_credit', id: 'bcp_3kq9ZLm2Xv8Tn1', rail: 'sepa', currency: 'EUR', amount: '50000', reference: 'PL7K2M9QX4',
    to_account: 'DE89370400440532013000', sender_name: 'Ada Lovelace', matched: true, payment_id: 'pay_7Hq2Lk9Wm3Zx5Rt8Yv1Nc4Bd', state: 'received', return_reason: null,
  },
  'sim.bank.credits.return': {
    object: 'sim.bank_credit', id: 'bcp_3kq9ZLm2Xv8Tn1', rail: 'sepa', currency: 'EUR', amount: '50000', reference: 'PL7K2M9QX4',
    to_account: 'DE89370400440532013000', sender_name: 'Ada Lovelace', matched: true, payment_id: 'pay_7Hq2Lk9Wm3Zx5Rt8Yv1Nc4Bd', state: 'returned', return_reason: 'R01 Insufficient funds',
  },
  'sim.bridge.transfers.update': {
    object: 'sim.bridge_transfer', id: 'brx_5Tg8Hj2Kl4Mn', payment_id: 'pay_7Hq2Lk9Wm3Zx5Rt8Yv1Nc4Bd', state: 'delivered', sim_state: 'delivered',
    received: '100000000', delivered: '99500000', delivery_tx_hash: TX,
  },
  'sim.emails.list': {
    object: 'list', has_more: false, next_cursor: null,
    data: [{ id: 'eml_2Wq8Er4Ty6Ui', to_address: 'payer@example.com', template: 'payment_link_invoice', subject: 'Invoice INV-1042 from Acme Studio',
      body: 'Acme Studio asks you to pay 250.00 USD: https://pay.example.com/p/k7m2x9q', related_object_id: 'pl_1ZvTMuqqp2Rtf4Yc68gZ7WvY', created_at: '2026-09-04T10:15:00.000Z' }],
  },
  'sim.process.get': {
    object: 'sim.process', pid: 4242,
    object_prototype: ['__defineGetter__', '__defineSetter__', '__lookupGetter__', '__lookupSetter__', '__proto__', 'constructor', 'hasOwnProperty', 'isPrototypeOf', 'propertyIsEnumerable', 'toLocaleString', 'toString', 'valueOf'],
    array_prototype: ['at', 'concat', 'constructor', 'copyWithin', 'entries', 'every', 'fill', 'filter', 'find', 'findIndex', 'findLast', 'findLastIndex', 'flat', 'flatMap', 'forEach', 'includes', 'indexOf', 'join', 'keys', 'lastIndexOf', 'length', 'map', 'pop', 'push', 'reduce', 'reduceRight', 'reverse', 'shift', 'slice', 'some', 'sort', 'splice', 'toLocaleString', 'toReversed', 'toSorted', 'toSpliced', 'toString', 'unshift', 'values', 'with'],
  },
  'sim.fiat_rails.payments.update': {
    object: 'sim.rail_payment', id: 'rlp_6Yh3Jk8Lm2Np', client_reference: PAYOUT, rail: 'ach', currency: 'USD', state: 'paid',
    amount: '100000', paid_amount: '100000', recipient_received_amount: null, reason: null, provider_reference: 'ACH-20260904-000417',
  },
  'sim.bridge.payout_transfers.list': {
    object: 'list', has_more: false, next_cursor: null,
    data: [{ id: 'bxt_9Rt4Yu6Io8Pa', idempotency_key: `${PAYOUT}:funding:1`, client_reference: PAYOUT, source_chain: 'base', deposit_address: ADDRESS, state: 'funds_received', created_at: '2026-09-04T10:15:00.000Z' }],
  },
  'sim.reconciliation.create': { object: 'sim.reconciliation', payout_id: PAYOUT, needs_attention: false },
  'sim.legal.acceptances.create': {
    object: 'sim.terms_acceptance', id: 'tac_3Fg5Hj7Kl9Zx', account_id: 'acct_4Gh7Kp2Ld9Qw', user_id: null, scope: 'account', revision: '2026-11-01', accepted_at: '2026-09-04T10:15:00.000Z',
  },
  'sim.kyc.decisions.create': {
    object: 'sim.kyc_decision', customer_id: 'cus_8Hk2Lm4Np6Qr', state: 'approved', requirements_due: null, rejection_outcome: null, endorsements: ['base', 'sepa'],
  },
  'sim.faults.set': { object: 'sim.fault', account_id: 'acct_4Gh7Kp2Ld9Qw', name: 'bridge.create_delay_ms', value: '2000' },
  'sim.orders.act': {
    object: 'sim.provider_order', order_id: 'ord_8Hk2Lm4Np6Qr', state: 'captured', captured: true, failure_kind: null, reason: null, delivery_tx_hash: null,
  },
  'sim.wallet.sends.sign': { object: 'sim.wallet_send_signature', wallet_send_id: 'wsd_8Jk2Lm4Np6Qr', tx_hash: TX },
  'sim.wallet.sign': {
    object: 'sim.signed_transaction', tx_hash: TX, chain: 'tempo', asset: 'USDC', from_address: '0x52908400098527886E0F7030069857D2E4169EE7',
    to_address: '0xdE0B295669a9FD93d5F28D9Ec85E40f4cb697BAe', amount: '1000000', decimals: 6, status: 'confirmed',
  },
  'sim.checkout.act': {
    object: 'sim.checkout_notification', outcome: 'paid', session_id: 'cs_sbx_5Tg8Hj2Kl4Mn', granted: 10,
    checkout: {
      id: 'cco_5Tg8Hj2Kl4Mn', object: 'credit_checkout', livemode: false, pack: 10, amount: { amount: '1000', currency: 'USD', decimals: 2 }, status: 'completed',
      url: 'https://checkout.example.com/cs_sbx_5Tg8Hj2Kl4Mn', expires_at: '2026-09-04T11:15:00.000Z', completed_at: '2026-09-04T10:16:00.000Z',
      created_at: '2026-09-04T10:15:00.000Z', updated_at: '2026-09-04T10:16:00.000Z',
    },
  },
  'sim.screening.signals.create': {
    object: 'sim.screening_signal', chain: 'ethereum', address: '0x5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a', risk_score: 85, flags: ['sanctions'], unavailable: false,
  },
});
