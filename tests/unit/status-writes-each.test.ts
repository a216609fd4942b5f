/**
 * lib/status-writes.ts `moveRowsEach` (issue 26 item 3): a batch whose rows carry their own target
 * is guarded per row by the pairs (current status, target) the table allows, plus the listed
 * repeats; an unknown status is a programming error. The tables of this new objects
 * (wallet send, credit checkout, checkout session) refuse what the code never does.
 */
import { moveRowsEach } from '../../lib/status-writes';
import { transitionTable } from '../../domain/transitions';
import { checkoutSessionTransitions, creditCheckoutTransitions } from '../../domain/credits';
import { walletSendTransitions } from '../../domain/wallet-sends';

describe('moveRowsEach', () => {
  const t = transitionTable<'new' | 'again' | 'done' | 'gone'>('thing', {
    new: ['again', 'done', 'gone'],
    again: ['done', 'gone'],
    done: [],
    gone: [],
  });
  const recorder = () => {
    const sent: Array<{ sql: string; params: unknown[] }> = [];
    return {
      sent,
      m: {
        query: async (sql: string, params: unknown[]) => {
          sent.push({ sql, params });
          return [[{ id: 'x1' }], 1];
        },
      },
    };
  };

  it("sends the allowed (from, to) pairs after the caller's params and answers the ids moved", async () => {
    const { sent, m } = recorder();
    const ids = await moveRowsEach(m as never, t, {
      sqlTable: 'things',
      alias: 'x',
      rows: 'unnest($1::text[], $2::text[]) AS t(id, target)',
      params: [['x1'], ['done']],
      to: ['again', 'done'],
      repeat: ['again'],
      set: 'updated_at = now()',
    });
    expect(ids).toEqual(['x1']);
    expect(sent[0].params).toEqual([['x1'], ['done'], ['new', 'again', 'new', 'again'], ['again', 'again', 'done', 'done']]);
    expect(sent[0].sql).toMatch(/UPDATE things x SET status = t\.target, updated_at = now\(\) FROM unnest/);
    expect(sent[0].sql).toMatch(/\(x\.status, t\.target\) IN \(SELECT \* FROM unnest\(\$3::text\[\], \$4::text\[\]\)\) RETURNING x\.id/);
  });

  it('refuses an unknown status or a repeat that is not a target', async () => {
    const { m } = recorder();
    const q = { sqlTable: 'things', alias: 'x', rows: 'r', params: [] };
    await expect(moveRowsEach(m as never, t, { ...q, to: ['nope' as never] })).rejects.toThrow(/unknown status nope/);
    await expect(moveRowsEach(m as never, t, { ...q, to: ['done'], repeat: ['again'] })).rejects.toThrow(/repeat again/);
  });
});

describe("the tables of issue 26's new objects", () => {
  it('wallet send: signable moves once; expired may still close; signed and closed are final', () => {
    expect(walletSendTransitions.sources('closed')).toEqual(['signable', 'expired']);
    expect(walletSendTransitions.sources('expired')).toEqual(['signable']);
    expect(walletSendTransitions.open).toEqual(['signable', 'expired']);
    expect(() => walletSendTransitions.move({ status: 'signed' }, 'closed')).toThrow(
      expect.objectContaining({ code: 'payout_state_changed' }),
    );
  });

  it('credit checkout: captured money completes a failed or expired checkout; completed is final; open set is open', () => {
    expect(creditCheckoutTransitions.sources('completed')).toEqual(['open', 'failed', 'expired']);
    expect(creditCheckoutTransitions.open).toEqual(['open']);
    expect(() => creditCheckoutTransitions.move({ status: 'completed' }, 'failed')).toThrow(
      expect.objectContaining({ code: 'checkout_session_closed' }),
    );
  });

  it('checkout session: only an open session moves', () => {
    expect(checkoutSessionTransitions.terminal).toEqual(['paid', 'failed', 'expired']);
    expect(checkoutSessionTransitions.sources('paid')).toEqual(['open']);
  });
});
