/**
 * Activity tier, wallet (activities/send-intents, offramp-intents, virtual-accounts, deposit-intents, conversions: the activities of the send-intent, off-ramp,
 * virtual-account, deposit-intent and conversion workflows), each run alone in
 * MockActivityEnvironment on real PostgreSQL with the sandbox chain, bridge, fiat rails and bank
 * collection. Proves the decisions the workflows act on (status, next step, wake time in workflow
 * time, waiting_for), the status moves with their events, and that a retried step pays, refunds,
 * converts or settles once.
 */
import crypto from 'node:crypto';
import { createConversion, submitConversionSourceTx } from '../../activities/conversions/commands';
import { createDepositIntent } from '../../activities/deposit-intents/commands';
import { createExternalAccount } from '../../activities/wallet/commands';
import { createOfframpIntent } from '../../activities/offramp-intents/commands';
import { createSendIntent, recordSendSourceTx } from '../../activities/send-intents/commands';
import { recordVirtualAccountCredit, createVirtualAccount } from '../../activities/virtual-accounts/commands';
import { walletConversionPairs } from '../../activities/conversions/queries';
import { checkConversion, expireConversion } from '../../activities/conversions/activities';
import { advanceDepositIntent, expireDepositIntent } from '../../activities/deposit-intents/activities';
import { advanceOfframp, OFFRAMP_POLL_MS, refundOfframp, submitOfframpPayment } from '../../activities/offramp-intents/activities';
import { advanceSendIntent, SEND_POLL_MS } from '../../activities/send-intents/activities';
import { settleVirtualAccountCredits, VIRTUAL_ACCOUNT_TREASURY } from '../../activities/virtual-accounts/activities';
import { CONVERSION_ROUTER } from '../../activities/conversions/queries';
import { activeWallet } from '../../activities/records/wallets';
import { systemScope } from '../../activities/scope';
import { INACTIVE_RETURN_REASON } from '../../domain/virtual-accounts';
import { provisionAccount } from '../../activities/accounts/commands';
import { db } from '../../lib/db';
import { bankCollection } from '../../providers/bank-collection';
import { chainAdapter } from '../../providers/chain';
import { signTransaction } from '../../providers/wallet-sends';
import { callsFor, count, describeWithDb, eventTypes, row, runActivity, testRequest, useActivityTier } from '../helpers/activity-env';
import { toAccountOf } from '../helpers/bank';

const OTHER = '0x52908400098527886E0F7030069857D2E4169EE7';
const hash = () => `0x${crypto.randomBytes(32).toString('hex')}`;

/** A fresh account whose service wallet holds `funds` stablecoin minor units. */
async function holder(funds = 100_000_000n) {
  const acct = await provisionAccount();
  const chain = chainAdapter();
  const wallet = await activeWallet(systemScope(acct.account_id, true));
  if (funds > 0n)
    await chain.inject({
      chain: chain.chain,
      asset: chain.stablecoin,
      to_address: wallet.address,
      amount: funds,
      decimals: 6,
      from_address: OTHER,
    });
  return { accountId: acct.account_id, wallet: wallet.address, balance: () => chain.balanceOf(wallet.address, chain.stablecoin) };
}

describeWithDb('wallet activities', () => {
  useActivityTier();

  describe('send intent (advanceSendIntent)', () => {
    const send = (accountId: string, amount: bigint) =>
      createSendIntent(systemScope(accountId, true, testRequest), {
        destinationChain: chainAdapter().chain,
        destinationAddress: OTHER,
        amount: { amount: amount.toString(), currency: chainAdapter().stablecoin, decimals: 6 },
        note: null,
      });

    test('unsigned: waits for the holder until expires_at (wake time mapped into workflow time); at expires_at -> expired with its event', async () => {
      const h = await holder();
      const si = await send(h.accountId, 1_000_000n);
      expect(callsFor(si.id)).toEqual(['signalWithStart:update']);
      const exp = si.expires_at.getTime();
      // The workflow started when the intent was created (origin 0 in workflow time): the wake-up is the remaining window, in workflow time.
      const p0 = await runActivity(advanceSendIntent, si.id, 0, 0);
      expect(p0.status).toBe('created');
      expect(Math.abs(p0.wakeAtMs! - (exp - si.created_at.getTime()))).toBeLessThan(5_000);
      expect(p0.waitingFor).toContain(si.expires_at.toISOString());
      expect(await runActivity(advanceSendIntent, si.id, exp - 1)).toMatchObject({ status: 'created', wakeAtMs: exp });
      expect(await runActivity(advanceSendIntent, si.id, exp)).toEqual({
        status: 'expired',
        wakeAtMs: null,
        waitingFor: 'nothing (expired)',
      });
      expect(await eventTypes(si.id)).toEqual(['send_intent.created', 'send_intent.expired']);
    });

    test('signed and on chain (direct route): source_submitted then settled in one step; a retried step writes nothing more', async () => {
      const h = await holder(3_000_000n);
      const si = await send(h.accountId, 1_000_000n);
      const t = await signTransaction(si.unsigned_transaction);
      await recordSendSourceTx(systemScope(h.accountId, true), { id: si.id, tx_hash: t.tx_hash });
      expect(await runActivity(advanceSendIntent, si.id, Date.now())).toEqual({
        status: 'settled',
        wakeAtMs: null,
        waitingFor: 'nothing (settled)',
      });
      expect(await runActivity(advanceSendIntent, si.id, Date.now())).toMatchObject({ status: 'settled' });
      expect(await eventTypes(si.id)).toEqual(['send_intent.created', 'send_intent.source_submitted', 'send_intent.settled']);
      expect(await row('wallet_send_intents', si.id)).toMatchObject({ delivery_tx_hash: t.tx_hash });
      expect(await h.balance()).toBe(2_000_000n);
    });

    test('a recorded hash not on chain: polled every SEND_POLL_MS until an hour after the recording, then failed source_tx_not_found', async () => {
      const h = await holder();
      const si = await send(h.accountId, 1_000_000n);
      const r = await recordSendSourceTx(systemScope(h.accountId, true), { id: si.id, tx_hash: hash() });
      const now = Date.now();
      expect(await runActivity(advanceSendIntent, si.id, now)).toMatchObject({ status: 'created', wakeAtMs: now + SEND_POLL_MS });
      const deadline = r.source_tx_recorded_at!.getTime() + 3_600_000;
      expect(await runActivity(advanceSendIntent, si.id, deadline - 1_000)).toMatchObject({ status: 'created', wakeAtMs: deadline });
      expect(await runActivity(advanceSendIntent, si.id, deadline)).toMatchObject({ status: 'failed', wakeAtMs: null });
      expect((await row('wallet_send_intents', si.id)).failure_reason).toBe('source_tx_not_found');
    });
  });

  describe('off-ramp (advanceOfframp, submitOfframpPayment, refundOfframp)', () => {
    async function intent(account = '000123456789') {
      const h = await holder();
      const ba = await createExternalAccount(systemScope(h.accountId, true), {
        account_owner_type: 'business',
        account_holder_name: 'Acme Ltd',
        rail: 'ach',
        account_number: account,
        routing_number: '021000021',
      });
      const chain = chainAdapter();
      const ofr = await createOfframpIntent(systemScope(h.accountId, true, testRequest), {
        external_account_id: ba.id,
        terms: {
          destinationCurrency: 'USD',
          destinationRail: 'ach',
          amount: { amount: '10000000', currency: chain.stablecoin, decimals: 6 },
        },
      });
      const fund = (amount: bigint) =>
        chain.inject({
          chain: chain.chain,
          asset: chain.stablecoin,
          from_address: h.wallet,
          to_address: ofr.transit_address,
          amount,
          decimals: 6,
        });
      return { h, ofr, fund };
    }

    test('nothing at the transit address: wait (poll, capped by the funding deadline); past the deadline with nothing -> failed funding_expired, done', async () => {
      const { ofr } = await intent();
      const now = Date.now();
      expect(await runActivity(advanceOfframp, ofr.id, now)).toMatchObject({
        status: 'awaiting_funds',
        next: 'wait',
        wakeAtMs: now + OFFRAMP_POLL_MS,
      });
      const deadline = ofr.funding_deadline.getTime();
      expect(await runActivity(advanceOfframp, ofr.id, deadline - 1_000)).toMatchObject({ next: 'wait', wakeAtMs: deadline });
      expect(await runActivity(advanceOfframp, ofr.id, deadline)).toMatchObject({ status: 'failed', next: 'done', wakeAtMs: null });
      expect(await row('wallet_offramp_intents', ofr.id)).toMatchObject({ failure_reason: 'funding_expired' });
    });

    test('funded: next submit; the bank is paid once under offramp:<id> (a retried submit makes no second payment); then payment_processed, done', async () => {
      const { ofr, fund } = await intent();
      await fund(10_000_000n);
      expect(await runActivity(advanceOfframp, ofr.id, Date.now())).toMatchObject({ status: 'funds_received', next: 'submit' });
      await runActivity(submitOfframpPayment, ofr.id);
      await runActivity(submitOfframpPayment, ofr.id);
      expect(await count('sandbox_rail_payments', 'idempotency_key = $1', [`offramp:${ofr.id}`])).toBe(1);
      expect((await row('wallet_offramp_intents', ofr.id)).status).toBe('payment_submitted');
      expect(await runActivity(advanceOfframp, ofr.id, Date.now())).toMatchObject({ status: 'payment_processed', next: 'done' });
      expect(await eventTypes(ofr.id)).toEqual([
        'offramp_intent.created',
        'offramp_intent.funds_received',
        'offramp_intent.payment_submitted',
        'offramp_intent.payment_processed',
      ]);
    });

    test('the bank payment fails (account ending 1116): next refund (payment_failed); the USDC goes back to the wallet once', async () => {
      const { h, ofr, fund } = await intent('000111111116');
      await fund(10_000_000n);
      const before = await h.balance();
      await runActivity(advanceOfframp, ofr.id, Date.now());
      await runActivity(submitOfframpPayment, ofr.id);
      expect(await runActivity(advanceOfframp, ofr.id, Date.now())).toMatchObject({ status: 'payment_submitted', next: 'refund' });
      expect((await row('wallet_offramp_intents', ofr.id)).failure_reason).toBe('payment_failed');
      await runActivity(refundOfframp, ofr.id);
      await runActivity(refundOfframp, ofr.id);
      expect(await row('wallet_offramp_intents', ofr.id)).toMatchObject({ status: 'refunded', refund_tx_hash: expect.any(String) });
      expect(await h.balance()).toBe(before + 10_000_000n);
      expect(await runActivity(advanceOfframp, ofr.id, Date.now())).toMatchObject({ next: 'done' });
    });
  });

  describe('virtual account (settleVirtualAccountCredits)', () => {
    async function account() {
      const h = await holder(0n);
      const va = await createVirtualAccount(systemScope(h.accountId, true, testRequest), { currency: 'USD' });
      const bdi = va.instructions[0] as Record<string, string | null>;
      const credit = async (amount: bigint) => {
        const c = await bankCollection().receive({
          rail: String(bdi.rail),
          currency: 'USD',
          amount,
          reference: bdi.reference,
          toAccount: toAccountOf(bdi),
          senderName: 'Payer',
        });
        expect(await recordVirtualAccountCredit(c, 2)).toBe(true);
        return c;
      };
      return { h, va, credit };
    }

    test('a received credit is converted at the reference rate and sent to the wallet once (key va-credit:<credit>), with virtual_account.deposit_received; a retried step settles nothing', async () => {
      const { h, va, credit } = await account();
      await credit(12_345n);
      expect(callsFor(va.id).filter((c) => c === 'signalWithStart:update').length).toBeGreaterThanOrEqual(2);
      expect(await runActivity(settleVirtualAccountCredits, va.id)).toEqual({ status: 'active', settled: 1 });
      expect(await runActivity(settleVirtualAccountCredits, va.id)).toEqual({ status: 'active', settled: 0 });
      const [c] = await db().query('SELECT status, usdc_minor, tx_hash FROM wallet_virtual_account_credits WHERE virtual_account_id = $1', [
        va.id,
      ]);
      expect(c.status).toBe('converted');
      expect(await count('sandbox_chain_transfers', 'from_address = $1 AND to_address = $2', [VIRTUAL_ACCOUNT_TREASURY, h.wallet])).toBe(1);
      expect(await h.balance()).toBe(BigInt(c.usdc_minor));
      expect((await eventTypes(va.id)).filter((t) => t === 'virtual_account.deposit_received')).toHaveLength(1);
    });

    test('a credit to a deactivated account is returned to its sender (R16), not converted', async () => {
      const { h, va, credit } = await account();
      await db().query(`UPDATE wallet_virtual_accounts SET status = 'inactive' WHERE id = $1`, [va.id]);
      const c = await credit(5_000n);
      expect(await runActivity(settleVirtualAccountCredits, va.id)).toEqual({ status: 'inactive', settled: 1 });
      expect(
        (await db().query('SELECT status, return_reason FROM wallet_virtual_account_credits WHERE virtual_account_id = $1', [va.id]))[0],
      ).toEqual({ status: 'returned', return_reason: INACTIVE_RETURN_REASON });
      expect((await bankCollection().get(c.id))?.state).toBe('returned');
      expect(await h.balance()).toBe(0n);
    });
  });

  describe('deposit intent (advanceDepositIntent, expireDepositIntent)', () => {
    test('nothing at the source-chain address: unchanged (changed false); USDC there -> source_detected, then bridged to the wallet -> settled', async () => {
      const h = await holder(0n);
      const d = await createDepositIntent(systemScope(h.accountId, true), { source_chain: 'base' });
      expect(await runActivity(advanceDepositIntent, d.id)).toMatchObject({ status: 'awaiting_funds', changed: false, terminal: false });
      await chainAdapter().inject({
        chain: 'base',
        asset: 'USDC',
        to_address: d.deposit_address,
        amount: 5_000_000n,
        decimals: 6,
        from_address: OTHER,
      });
      expect(await runActivity(advanceDepositIntent, d.id)).toMatchObject({ status: 'source_detected', changed: true });
      let s = await runActivity(advanceDepositIntent, d.id);
      for (let i = 0; i < 3 && !s.terminal; i++) s = await runActivity(advanceDepositIntent, d.id);
      expect(s).toMatchObject({ status: 'settled', terminal: true });
      expect(await runActivity(advanceDepositIntent, d.id)).toMatchObject({ status: 'settled', changed: false });
      const types = await eventTypes(d.id);
      expect(types[0]).toBe('deposit_intent.created');
      expect(types.filter((t) => t === 'deposit_intent.settled')).toHaveLength(1);
      expect(await h.balance()).toBeGreaterThan(0n);
    });

    test('expireDepositIntent with nothing seen -> expired; on an intent that already moved it changes nothing', async () => {
      const h = await holder(0n);
      const d = await createDepositIntent(systemScope(h.accountId, true), { source_chain: 'base' });
      expect(await runActivity(expireDepositIntent, d.id)).toMatchObject({ status: 'expired', terminal: true, changed: true });
      expect(await runActivity(expireDepositIntent, d.id)).toMatchObject({ status: 'expired', changed: false });
    });
  });

  describe('conversion (checkConversion, expireConversion)', () => {
    test('the signed transaction matches what was built: settled, the router pays the other asset once; a retried check pays nothing more', async () => {
      const h = await holder(10_000_000n);
      const chain = chainAdapter();
      const pair = walletConversionPairs().find((p) => p.from === chain.stablecoin)!;
      const c = await createConversion(systemScope(h.accountId, true), {
        from_asset: pair.from,
        to_asset: pair.to,
        amount: { amount: '4000000', currency: pair.from, decimals: 6 },
      });
      expect(await runActivity(checkConversion, c.id)).toMatchObject({ status: 'built', terminal: false });
      const tx = (
        await chain.inject({
          chain: chain.chain,
          asset: c.from_asset,
          from_address: h.wallet,
          to_address: (c.unsigned_tx as { to: string }).to,
          amount: 4_000_000n,
          decimals: 6,
          tx_hash: hash(),
        })
      ).tx_hash;
      await submitConversionSourceTx(systemScope(h.accountId, true), { id: c.id, tx_hash: tx });
      expect(await runActivity(checkConversion, c.id)).toMatchObject({ status: 'settled', terminal: true });
      expect(await runActivity(checkConversion, c.id)).toMatchObject({ status: 'settled' });
      expect(await chain.balanceOf(h.wallet, c.to_asset)).toBe(BigInt(c.amount_out_minor));
      expect(await count('sandbox_chain_transfers', 'from_address = $1 AND to_address = $2', [CONVERSION_ROUTER, h.wallet])).toBe(1);
    });

    test('a conversion never signed fails expired at its deadline', async () => {
      const h = await holder(10_000_000n);
      const chain = chainAdapter();
      const pair = walletConversionPairs().find((p) => p.from === chain.stablecoin)!;
      const c = await createConversion(systemScope(h.accountId, true), {
        from_asset: pair.from,
        to_asset: pair.to,
        amount: { amount: '1000000', currency: pair.from, decimals: 6 },
      });
      expect(await runActivity(expireConversion, c.id)).toMatchObject({ status: 'failed', terminal: true });
      expect((await row('wallet_conversions', c.id)).failure_reason).toBe('expired');
    });
  });
});
