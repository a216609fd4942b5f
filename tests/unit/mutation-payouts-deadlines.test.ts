/**
 * The wallet funding cancel hold (domain/payouts/deadlines.ts, spec 4.3 and 8 "Wallet funding cancel
 * hold: 30 minutes after expiry"): a prepared send that has already expired still blocks cancel
 * until 30 minutes after its signable window closed, with the spec's value written out here rather
 * than read from the module's constant.
 */
import { walletSendCancelBlock } from '../../domain/payouts/deadlines';

const THIRTY_MINUTES_MS = 30 * 60 * 1000;

describe('walletSendCancelBlock for an expired send (spec 4.3, 8)', () => {
  const until = Date.UTC(2026, 0, 15, 12, 0, 0);

  it('blocks from expiry until 30 minutes after it, then allows cancel', () => {
    const send = { status: 'expired', signableUntilMs: until };
    expect(walletSendCancelBlock(send, until)).toBe(until + THIRTY_MINUTES_MS);
    expect(walletSendCancelBlock(send, until + THIRTY_MINUTES_MS - 60_000)).toBe(until + THIRTY_MINUTES_MS);
    expect(walletSendCancelBlock(send, until + THIRTY_MINUTES_MS)).toBeNull();
  });

  it('a send in any other state never blocks', () => {
    for (const status of ['submitted', 'confirmed', 'failed', 'closed', '']) {
      expect(walletSendCancelBlock({ status, signableUntilMs: until }, until - 1)).toBeNull();
    }
  });
});
