/**
 * Traces and on-chain transaction lookups (spec 4.8 `POST /traces`, `GET /transactions/{chain}/
 * {hash}`), over the sandbox chain indexer (providers/chain-indexer.ts). A trace follows
 * funds breadth-first from an address or a transaction, `depth` hops (1 to 5) in `direction`, at
 * most MAX_TRACE_EDGES transfers (then `truncated`). Amounts in minor units. Both take
 * `(scope, input)` like every query the routes call; the indexer's chain data belongs to no
 * account, so the scope selects nothing here.
 */
import { resolveChain } from '../../domain/addresses';
import { DomainError, invalidRequest, notFound } from '../../domain/errors';
import { PAYOUT_SOURCE_CHAINS } from '../../domain/payouts/corridors';
import { MAX_TRACE_DEPTH, MAX_TRACE_EDGES, type TraceDirection } from '../../domain/screening';
import { headBlockOf, indexedChains, indexedTransaction, transfersOf, type IndexedTransfer } from '../../providers/chain-indexer';
import type { AccountScope } from '../scope';

/** The indexed chain named by `input` (id or name); 409 `network_not_supported` (param `chain`) otherwise. */
export function indexedChain(input: unknown): string {
  const c = resolveChain(input);
  const chains = indexedChains(PAYOUT_SOURCE_CHAINS);
  if (!c || !chains.includes(c))
    throw new DomainError('conflict', 'network_not_supported', `The indexer covers ${chains.join(', ')}.`, { param: 'chain' });
  return c;
}

/** `GET /transactions/{chain}/{hash}`: the transfer with its confirmations (0 while pending); 404 param `hash`. */
export async function lookupTransaction(
  _scope: AccountScope,
  input: { chain: string; hash: string },
): Promise<IndexedTransfer & { confirmations: number }> {
  const { hash } = input;
  const chain = indexedChain(input.chain);
  if (!/^0x[0-9a-fA-F]{64}$/.test(hash)) throw invalidRequest('parameter_invalid', '`hash` is 0x and 64 hex digits.', 'hash');
  const t = await indexedTransaction(chain, hash);
  if (!t) throw notFound(`No transaction ${hash} on ${chain}.`, 'hash');
  return { ...t, confirmations: t.block === null ? 0 : Math.max(1, (await headBlockOf(chain)) - t.block + 1) };
}

/** A trace: the addresses reached (with their hop count) and the transfers followed. */
export interface Trace {
  chain: string;
  depth: number;
  direction: TraceDirection;
  nodes: Array<{ address: string; hop: number }>;
  edges: IndexedTransfer[];
  truncated: boolean;
}

/**
 * `POST /traces`: from `address`, or from both ends of transaction `tx_hash` (exactly one; 400
 * `parameter_missing` / `parameter_invalid`), follows transfers `depth` hops in `direction`.
 * 404 param `tx_hash` for an unknown transaction.
 */
export async function trace(
  _scope: AccountScope,
  input: { chain: unknown; address?: string; tx_hash?: string; depth: number; direction: TraceDirection },
): Promise<Trace> {
  const chain = indexedChain(input.chain);
  if ((input.address === undefined) === (input.tx_hash === undefined)) {
    throw invalidRequest(
      input.address === undefined ? 'parameter_missing' : 'parameter_invalid',
      'Give exactly one of `address` and `tx_hash`.',
      input.address === undefined ? 'address' : 'tx_hash',
    );
  }
  const depth = Math.min(Math.max(1, input.depth), MAX_TRACE_DEPTH);
  const seen = new Map<string, { address: string; hop: number }>();
  const edges = new Map<string, IndexedTransfer>();
  let frontier: string[] = [];
  if (input.tx_hash) {
    const t = await indexedTransaction(chain, input.tx_hash);
    if (!t || t.status !== 'confirmed') throw notFound(`No transaction ${input.tx_hash} on ${chain}.`, 'tx_hash');
    edges.set(t.tx_hash, t);
    for (const x of [t.from_address, t.to_address])
      if (x) {
        seen.set(x.toLowerCase(), { address: x, hop: 0 });
        frontier.push(x);
      }
  } else {
    seen.set(input.address!.toLowerCase(), { address: input.address!, hop: 0 });
    frontier = [input.address!];
  }
  let truncated = false;
  for (let hop = 1; hop <= depth && frontier.length && !truncated; hop++) {
    const next: string[] = [];
    for (const addr of frontier) {
      const dirs: Array<'incoming' | 'outgoing'> = input.direction === 'both' ? ['incoming', 'outgoing'] : [input.direction];
      for (const d of dirs) {
        for (const t of await transfersOf(chain, addr, d, MAX_TRACE_EDGES + 1)) {
          if (edges.size >= MAX_TRACE_EDGES && !edges.has(t.tx_hash)) {
            truncated = true;
            break;
          }
          edges.set(t.tx_hash, t);
          const other = d === 'incoming' ? t.from_address : t.to_address;
          if (other && !seen.has(other.toLowerCase())) {
            seen.set(other.toLowerCase(), { address: other, hop });
            next.push(other);
          }
        }
      }
    }
    frontier = next;
  }
  return { chain, depth, direction: input.direction, nodes: [...seen.values()], edges: [...edges.values()], truncated };
}
