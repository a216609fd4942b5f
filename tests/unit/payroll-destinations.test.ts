/**
 * Payroll destination rules (spec 4.4; issue 13): the destination-readiness table, open runs and
 * reissue, when a session may submit, the check of a submitted destination (rail of the run
 * currency, wallet chain and EIP-55 checksum, fields of the other kind), the wallet mask, the
 * keyless rule and the adoption plan.
 */
import { normalizeBeneficiary } from '../../domain/bank-details';
import {
  adoptionPlan,
  checkSubmittedDestination,
  keylessReason,
  maskWalletAddress,
  payrollDestinationTransitions,
  railsForCurrency,
  runAllowsReissue,
  runOpenForDestinations,
  sessionClosedReason,
  type AdoptionItem,
  type DestinationInput,
} from '../../domain/payroll-destinations';
import { IllegalTransition } from '../../domain/transitions';
import { caught } from '../helpers/domain';

const CHAIN = { chain: 'tempo', asset: 'USDC', network: 'testnet' as const };
const WALLET = '0x52908400098527886E0F7030069857D2E4169EE7';
const ach = {
  type: 'bank_account',
  account_owner_type: 'individual',
  account_holder_name: 'Ana',
  rail: 'ach',
  account_number: '000123456789',
  routing_number: '021000021',
} as DestinationInput;

describe('destination readiness', () => {
  it('moves missing -> pending_adoption -> ready, missing -> ready, never back', () => {
    expect(payrollDestinationTransitions.can('missing', 'pending_adoption')).toBe(true);
    expect(payrollDestinationTransitions.can('missing', 'ready')).toBe(true);
    expect(payrollDestinationTransitions.can('pending_adoption', 'ready')).toBe(true);
    const e = caught(() => payrollDestinationTransitions.assert('ready', 'missing'));
    expect(e).toBeInstanceOf(IllegalTransition);
    expect(e).toMatchObject({ status: 409, code: 'payroll_item_state_changed' });
    expect(payrollDestinationTransitions.can('ready', 'pending_adoption')).toBe(false);
  });
});

describe('runs and sessions', () => {
  it('a run is open until it executes, finishes or is cancelled; links are reissued until finished or cancelled', () => {
    for (const s of ['draft', 'approved', 'reviewed', 'funding_pending', 'funded']) expect(runOpenForDestinations(s)).toBe(true);
    for (const s of ['executing', 'completed', 'partial', 'failed', 'cancelled']) expect(runOpenForDestinations(s)).toBe(false);
    expect(runAllowsReissue('executing')).toBe(true);
    for (const s of ['completed', 'partial', 'failed', 'cancelled']) expect(runAllowsReissue(s)).toBe(false);
  });

  it('a session submits once, while the run is open and the item pending', () => {
    expect(sessionClosedReason({ submittedAt: null, runStatus: 'reviewed', itemStatus: 'pending' })).toBeNull();
    expect(sessionClosedReason({ submittedAt: new Date(), runStatus: 'reviewed', itemStatus: 'pending' })).toBe(
      'destination_already_submitted',
    );
    expect(sessionClosedReason({ submittedAt: null, runStatus: 'cancelled', itemStatus: 'pending' })).toBe('run_not_open');
    expect(sessionClosedReason({ submittedAt: null, runStatus: 'funded', itemStatus: 'queued' })).toBe('item_in_payment');
  });
});

describe('checkSubmittedDestination', () => {
  it('takes a bank account on a rail of the run currency, masked', () => {
    const { destination, masked } = checkSubmittedDestination(ach, 'USD', CHAIN);
    expect(destination).toMatchObject({ type: 'bank_account', bank: { rail: 'ach', account_number: '000123456789', currency: 'USD' } });
    expect(masked).toMatchObject({ type: 'bank_account', bank: { account_number_last4: '6789' } });
    expect(JSON.stringify(masked)).not.toContain('000123456789');
    expect(railsForCurrency('USD')).toEqual(['ach', 'wire']);
    const e = caught(() => checkSubmittedDestination(ach, 'EUR', CHAIN));
    expect(e).toMatchObject({
      status: 400,
      code: 'parameter_invalid',
      param: 'rail',
      details: { currency: 'EUR', allowed_rails: ['sepa'] },
    });
  });

  it('names the missing or stray field', () => {
    expect(
      caught(() =>
        checkSubmittedDestination(
          { type: 'bank_account', rail: 'ach', account_owner_type: 'individual' } as DestinationInput,
          'USD',
          CHAIN,
        ),
      ),
    ).toMatchObject({ code: 'parameter_missing', param: 'account_holder_name' });
    expect(caught(() => checkSubmittedDestination({ ...ach, address: WALLET } as DestinationInput, 'USD', CHAIN))).toMatchObject({
      code: 'parameter_invalid',
      param: 'address',
    });
    expect(
      caught(() =>
        checkSubmittedDestination({ type: 'wallet', chain: 'tempo', address: WALLET, rail: 'ach' } as DestinationInput, 'USD', CHAIN),
      ),
    ).toMatchObject({ code: 'parameter_invalid', param: 'rail' });
    expect(caught(() => checkSubmittedDestination({ type: 'wallet', address: WALLET }, 'USD', CHAIN))).toMatchObject({
      code: 'parameter_missing',
      param: 'chain',
    });
  });

  it('takes a USDC wallet on the sandbox chain with a valid checksum (case kept), masked', () => {
    const { destination, masked } = checkSubmittedDestination({ type: 'wallet', chain: '42429', address: WALLET }, 'EUR', CHAIN);
    expect(destination).toEqual({ type: 'wallet', chain: 'tempo', asset: 'USDC', address: WALLET });
    expect(masked).toEqual({ type: 'wallet', chain: 'tempo', asset: 'USDC', address_masked: '0x5290...9EE7' });
    expect(maskWalletAddress(WALLET)).toBe('0x5290...9EE7');
    expect(
      caught(() => checkSubmittedDestination({ type: 'wallet', chain: 'tempo', address: WALLET.replace('E', 'e') }, 'USD', CHAIN)),
    ).toMatchObject({ param: 'address' });
    expect(caught(() => checkSubmittedDestination({ type: 'wallet', chain: 'base', address: WALLET }, 'USD', CHAIN))).toMatchObject({
      param: 'chain',
    });
    expect(
      caught(() => checkSubmittedDestination({ type: 'wallet', chain: 'tempo', address: `0x${'0'.repeat(40)}` }, 'USD', CHAIN)),
    ).toMatchObject({ param: 'address' });
  });
});

describe('keylessReason', () => {
  const bank = (input: Parameters<typeof normalizeBeneficiary>[0]) => ({
    type: 'bank_account' as const,
    bank: normalizeBeneficiary(input).details,
  });
  it('refuses a rail of another currency and a rail without its account key', () => {
    const usBank = bank({
      account_owner_type: 'individual',
      account_holder_name: 'A',
      rail: 'ach',
      account_number: '000123456789',
      routing_number: '021000021',
    });
    expect(keylessReason(usBank, 'USD')).toBeNull();
    expect(keylessReason(usBank, 'EUR')).toBe('rail_currency_mismatch');
    const pix = bank({ account_owner_type: 'individual', account_holder_name: 'A', rail: 'pix', pix_key: 'a@example.com' });
    expect(keylessReason(pix, 'BRL')).toBeNull();
    expect(keylessReason({ type: 'bank_account', bank: { ...pix.bank, pix_key: null } }, 'BRL')).toBe('account_key_missing');
  });
  it('pays a wallet in any currency with a reference rate', () => {
    const w = { type: 'wallet' as const, chain: 'tempo', asset: 'USDC', address: WALLET };
    for (const c of ['USD', 'EUR', 'GBP', 'BRL', 'MXN']) expect(keylessReason(w, c)).toBeNull();
    expect(keylessReason(w, 'XYZ')).toBe('no_usdc_rate');
  });
});

describe('adoptionPlan', () => {
  const item = (id: string, runStatus: string, status: AdoptionItem['status']): AdoptionItem => ({
    id,
    runId: `pr_${id}`,
    runStatus,
    status,
    currency: 'USD',
  });
  it('updates pending items of open runs and says why the rest are skipped', () => {
    const plan = adoptionPlan([
      item('a', 'reviewed', 'pending'),
      item('b', 'funded', 'pending'),
      item('c', 'cancelled', 'pending'),
      item('d', 'executing', 'queued'),
      item('e', 'funded', 'queued'),
      item('f', 'funded', 'paid'),
    ]);
    expect(plan.update.map((i) => i.id)).toEqual(['a', 'b']);
    expect(plan.skipped.map((i) => [i.id, i.reason])).toEqual([
      ['c', 'run_not_open'],
      ['d', 'run_not_open'],
      ['e', 'item_in_payment'],
      ['f', 'item_finished'],
    ]);
  });
});
