/** Allocator of payment link reference numbers `CP-<n>` (spec 2.3 `reference_id`). */
import { notFound } from '../../domain/errors';
import { auxDb } from '../../lib/db';

/** Reference-number blocks reserved by this process, per account: next number to hand out and the block's last. */
const referenceBlocks = new Map<string, { next: bigint; last: bigint; size: number; fetchedAt: number; pending?: Promise<void> }>();

/**
 * Next `CP-<n>` of the account (spec 2.3 `reference_id`: server-minted, unique per merchant).
 * Numbers come from the account's counter (`accounts.link_reference_seq`) in blocks reserved by
 * this process with one short autocommit UPDATE: a block of 1 while the account creates slowly
 * (consecutive numbers), doubling up to 64 while it creates many per second, so concurrent creates
 * never queue on the account row. Numbers are unique and increase per process; a process that
 * stops leaves the rest of its block unused (a gap). Throws 404 for an unknown account.
 */
export async function nextReferenceId(accountId: string): Promise<string> {
  for (;;) {
    const b = referenceBlocks.get(accountId);
    if (b && b.next <= b.last) return `CP-${(b.next++).toString()}`;
    if (b?.pending) {
      await b.pending;
      continue;
    }
    const now = Date.now();
    const size = b && now - b.fetchedAt < 1000 ? Math.min(b.size * 2, 64) : 1;
    const entry = { next: 1n, last: 0n, size, fetchedAt: now, pending: undefined as Promise<void> | undefined };
    entry.pending = (async () => {
      try {
        const { rows } = await auxDb().query<{ last: string }>(
          'UPDATE accounts SET link_reference_seq = link_reference_seq + $2 WHERE id = $1 RETURNING link_reference_seq::text AS last',
          [accountId, size],
        );
        if (!rows[0]) throw notFound('No such account.');
        entry.last = BigInt(rows[0].last);
        entry.next = entry.last - BigInt(size) + 1n;
      } finally {
        entry.pending = undefined;
      }
    })();
    referenceBlocks.set(accountId, entry);
    if (referenceBlocks.size > 10000) referenceBlocks.clear();
    await entry.pending;
  }
}
