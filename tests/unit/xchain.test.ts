/**
 * domain/xchain.ts (spec 2.1, 2.4, 4.1, 7; issue 12): cross-network and transfer request rules,
 * the gross-up of a bridge quote, the watcher's transition table and the watcher state a ledger
 * status implies.
 */
import { isDomainError } from '../../domain/errors';
import {
  grossUp,
  validateTransferRequest,
  validateXchainRequest,
  watcherAfterDelivery,
  watcherTransitions,
  XCHAIN_NETWORKS,
  XCHAIN_USDC,
} from '../../domain/xchain';

const REFUND = '0xAbCdEf0123456789abcdef0123456789ABCDEF01';
const base = { network: 'base', stablecoin: 'USDC', refund_address: REFUND, nativeChain: 'tempo', forbiddenAddresses: [] as string[] };

function refusal(f: () => unknown): { status: number; type: string; code: string; param?: string } {
  try {
    f();
  } catch (e) {
    if (isDomainError(e)) return { status: e.status, type: e.type, code: e.code, param: e.param };
    throw e;
  }
  throw new Error('expected a refusal');
}

describe('validateXchainRequest', () => {
  test('accepts the five source networks, USDC (also when absent), and keeps the refund address verbatim', () => {
    for (const network of XCHAIN_NETWORKS)
      expect(validateXchainRequest({ ...base, network })).toEqual({ network, stablecoin: 'USDC', refundAddress: REFUND });
    expect(validateXchainRequest({ ...base, stablecoin: undefined }).stablecoin).toBe('USDC');
  });

  test('network: missing is 400 parameter_missing; the native chain, solana or another chain is 409 network_not_supported', () => {
    expect(refusal(() => validateXchainRequest({ ...base, network: undefined }))).toEqual({
      status: 400,
      type: 'invalid_request',
      code: 'parameter_missing',
      param: 'network',
    });
    for (const network of ['tempo', 'solana', 'bsc', 'bitcoin']) {
      expect(refusal(() => validateXchainRequest({ ...base, network }))).toEqual({
        status: 409,
        type: 'conflict',
        code: 'network_not_supported',
        param: 'network',
      });
    }
  });

  test('stablecoin other than USDC is 400 param stablecoin', () => {
    for (const stablecoin of ['USDT', 'USDC.e', 'usdc']) {
      expect(refusal(() => validateXchainRequest({ ...base, stablecoin }))).toEqual({
        status: 400,
        type: 'invalid_request',
        code: 'invalid_request',
        param: 'stablecoin',
      });
    }
  });

  test('refund_address: missing, off-pattern, zero, or a forbidden address (any case) is 400 param refund_address', () => {
    expect(refusal(() => validateXchainRequest({ ...base, refund_address: undefined })).param).toBe('refund_address');
    for (const refund_address of ['0x12', `${REFUND}0`, REFUND.slice(2), `0x${'0'.repeat(40)}`, `0x${'g'.repeat(40)}`]) {
      expect(refusal(() => validateXchainRequest({ ...base, refund_address }))).toEqual({
        status: 400,
        type: 'invalid_request',
        code: 'invalid_request',
        param: 'refund_address',
      });
    }
    expect(refusal(() => validateXchainRequest({ ...base, forbiddenAddresses: [REFUND.toLowerCase()] })).param).toBe('refund_address');
  });
});

describe('validateTransferRequest', () => {
  const t = { source_chain: 'tempo', source_asset: 'USDC', nativeChain: 'tempo' };
  test('accepts USDC on the native chain, with or without a source address', () => {
    expect(validateTransferRequest(t)).toEqual({ sourceChain: 'tempo', sourceAddress: null });
    expect(validateTransferRequest({ ...t, source_address: REFUND })).toEqual({ sourceChain: 'tempo', sourceAddress: REFUND });
  });
  test('refuses missing fields, another chain (409 network_not_supported), another asset and a bad source address', () => {
    expect(refusal(() => validateTransferRequest({ ...t, source_chain: undefined }))).toMatchObject({
      status: 400,
      code: 'parameter_missing',
      param: 'source_chain',
    });
    expect(refusal(() => validateTransferRequest({ ...t, source_asset: undefined }))).toMatchObject({
      status: 400,
      code: 'parameter_missing',
      param: 'source_asset',
    });
    expect(refusal(() => validateTransferRequest({ ...t, source_chain: 'base' }))).toMatchObject({
      status: 409,
      code: 'network_not_supported',
      param: 'source_chain',
    });
    expect(refusal(() => validateTransferRequest({ ...t, source_asset: 'DAI' }))).toMatchObject({ status: 400, param: 'source_asset' });
    expect(refusal(() => validateTransferRequest({ ...t, source_address: 'x' }))).toMatchObject({ status: 400, param: 'source_address' });
  });
});

test('grossUp: the payer sends amount_out plus the fee, in bigint minor units', () => {
  expect(grossUp(101_000_000n, 100_000n)).toEqual({ amountIn: 101_100_000n, amountOut: 101_000_000n, fee: 100_000n });
  expect(grossUp(1n, 0n).amountIn).toBe(1n);
  expect(() => grossUp(0n, 1n)).toThrow(RangeError);
  expect(() => grossUp(1n, -1n)).toThrow(RangeError);
});

test('the watcher table: the happy path, delivered terminal, recovery after a close, illegal moves are 409 watcher_state_changed', () => {
  const path = ['address_issued', 'source_seen', 'confirming', 'matching', 'source_seen', 'confirming', 'delivered'] as const;
  for (let i = 1; i < path.length; i++) expect(watcherTransitions.can(path[i - 1], path[i])).toBe(true);
  expect(watcherTransitions.terminal).toEqual(['delivered']);
  expect(watcherTransitions.can('expired', 'recovery_required')).toBe(true);
  expect(watcherTransitions.can('recovery_required', 'recovering')).toBe(true);
  expect(watcherTransitions.can('delivered', 'recovery_required')).toBe(false);
  expect(refusal(() => watcherTransitions.assert('expired', 'delivered'))).toMatchObject({ status: 409, code: 'watcher_state_changed' });
});

test('watcherAfterDelivery: delivered only with paid, matching bridge_delivered_less with underpaid, recovery on a closed payment', () => {
  for (const s of ['paid', 'overpaid', 'settled'] as const) expect(watcherAfterDelivery(s)).toEqual({ state: 'delivered', reason: null });
  expect(watcherAfterDelivery('underpaid')).toEqual({ state: 'matching', reason: 'bridge_delivered_less' });
  for (const s of ['unmatched', 'expired', 'abandoned'] as const)
    expect(watcherAfterDelivery(s)).toEqual({ state: 'recovery_required', reason: 'payment_closed' });
  expect(watcherAfterDelivery('awaiting')).toBeNull();
});

test('XCHAIN_USDC names a chain id and a token contract for every source network', () => {
  for (const n of XCHAIN_NETWORKS) expect(XCHAIN_USDC[n].tokenAddress).toMatch(/^0x[0-9a-fA-F]{40}$/);
  expect(new Set(XCHAIN_NETWORKS.map((n) => XCHAIN_USDC[n].chainId)).size).toBe(5);
});
