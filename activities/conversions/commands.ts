/**
 * The conversion's commands, what the routes call (spec 2.5): building a conversion of one wallet
 * asset into another (the router call the holder signs) and recording the signed hash. Each writes
 * its row with its outbox event in one transaction, then starts or wakes its workflow (signals.ts).
 * `(scope, input)` (activities/scope.ts). Amounts in 6-decimal minor units.
 */
import { DomainError, invalidRequest } from '../../domain/errors';
import { conversionCallData } from '../../domain/evm-calls';
import { assetAmount, CONVERSION_SIGNABLE_MS, priceConversion, WALLET_ASSET_DECIMALS } from '../../domain/wallet-deposits';
import { WalletConversion } from '../../entities';
import { transaction } from '../../lib/db';
import { newId } from '../../lib/ids';
import { chainAdapter } from '../../providers/chain';
import { assertConversionSubmittable, emitConversionEvent, lockConversion, submitConversion } from '../records/conversions';
import { activeWallet } from '../records/wallets';
import type { Scope } from '../scope';
import type { MoneyIn } from '../deposit-intents/queries';
import { CONVERSION_ROUTER, getConversion, walletConversionPairs } from './queries';
import { signalConversion } from './signals';

/** The token contract of `asset` on the sandbox chain. */
const tokenAddress = (asset: string) => chainAdapter().tokenAddressOf(asset);

/**
 * `POST /wallet/conversions`: `from_asset` -> `to_asset` (a pair of conversion_pairs, else `400
 * conversion_pair_unsupported` param `to_asset`), `amount` in `from_asset` (MoneyPositive).
 * Priced 1:1 less the pair fee; `built` with the unsigned transaction (the router call; the token
 * transfer it makes), signable for CONVERSION_SIGNABLE_MS; event `conversion.built`; its workflow starts.
 */
export async function createConversion(
  scope: Scope,
  body: { from_asset: string; to_asset: string; amount: MoneyIn },
): Promise<WalletConversion> {
  const pair = walletConversionPairs().find((p) => p.from === body.from_asset && p.to === body.to_asset);
  if (!pair) {
    throw invalidRequest(
      'conversion_pair_unsupported',
      `No conversion from ${body.from_asset} to ${body.to_asset}; see GET /v1/wallet/conversion_pairs.`,
      'to_asset',
    );
  }
  const amountIn = assetAmount(body.amount, [pair.from]);
  const price = priceConversion(pair, amountIn);
  const wallet = await activeWallet(scope);
  const chain = chainAdapter();
  const id = newId('cnv_');
  const now = new Date();
  const unsigned = {
    chain: chain.chain,
    chain_id: chain.chainId,
    from: wallet.address,
    to: CONVERSION_ROUTER,
    value: '0',
    data: conversionCallData({
      tokenIn: tokenAddress(pair.from),
      tokenOut: tokenAddress(pair.to),
      amountIn: price.amountIn,
      minAmountOut: price.amountOut,
      reference: id,
    }),
    token_transfer: {
      token: tokenAddress(pair.from),
      to: CONVERSION_ROUTER,
      amount: { amount: price.amountIn.toString(), currency: pair.from, decimals: WALLET_ASSET_DECIMALS },
    },
  };
  const row = await transaction(async (m) => {
    const saved = await m.save(
      m.create(WalletConversion, {
        id,
        account_id: scope.accountId,
        livemode: scope.livemode,
        wallet_id: wallet.id,
        status: 'built',
        chain: chain.chain,
        wallet_address: wallet.address,
        from_asset: pair.from,
        to_asset: pair.to,
        amount_in_minor: price.amountIn.toString(),
        fee_minor: price.fee.toString(),
        amount_out_minor: price.amountOut.toString(),
        unsigned_tx: unsigned,
        source_tx_hash: null,
        settlement_tx_hash: null,
        failure_reason: null,
        signable_until: new Date(now.getTime() + CONVERSION_SIGNABLE_MS),
        submitted_at: null,
      }),
    );
    await emitConversionEvent(m, saved, scope.request);
    return saved;
  });
  await signalConversion(row.id, row.account_id);
  return row;
}

const TX_HASH = /^0x[0-9a-fA-F]{64}$/;

/**
 * `POST /wallet/conversions/{id}/source_tx {tx_hash}`: the hash the holder signed. `built` ->
 * `submitted` (event `conversion.submitted`) and the workflow wakes. The same hash again answers
 * the conversion unchanged; 400 `parameter_invalid` param `tx_hash` for a malformed hash; 409
 * `conversion_expired` past `signable_until`; 409 `source_tx_already_used` for a hash another
 * conversion recorded; 409 `conversion_state_changed` once another hash was recorded or it ended.
 */
export async function submitConversionSourceTx(scope: Scope, input: { id: string; tx_hash: string }): Promise<WalletConversion> {
  if (!TX_HASH.test(input.tx_hash)) throw invalidRequest('parameter_invalid', '`tx_hash` must be 0x and 64 hex digits.', 'tx_hash');
  await getConversion(scope, { id: input.id });
  const row = await transaction(async (m) => {
    const c = (await lockConversion(m, input.id, scope))!;
    // The recorded hash again answers the conversion as it is now (the workflow may already have settled it).
    if (c.source_tx_hash?.toLowerCase() === input.tx_hash.toLowerCase()) return c;
    if (c.status === 'built' && c.signable_until.getTime() <= Date.now()) {
      throw new DomainError('conflict', 'conversion_expired', 'This conversion can no longer be signed; build a new one.', {
        details: { signable_until: c.signable_until.toISOString() },
      });
    }
    assertConversionSubmittable(c); // 409 conversion_state_changed before the hash is looked up
    const used: Array<{ id: string }> = await m.query(
      'SELECT id FROM wallet_conversions WHERE lower(source_tx_hash) = lower($1) AND id <> $2',
      [input.tx_hash, c.id],
    );
    if (used[0])
      throw new DomainError('conflict', 'source_tx_already_used', 'This transaction hash was recorded for another conversion.', {
        param: 'tx_hash',
      });
    return submitConversion(m, c, { sourceTxHash: input.tx_hash }, scope.request);
  });
  await signalConversion(row.id, row.account_id);
  return row;
}
