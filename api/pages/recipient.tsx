/**
 * The payroll recipient's page (issue 22 part 2; spec 4.4 recipient sessions): `/payroll/<prk_token>`,
 * the URL `reissue_link` hands out (views/payroll-destination.ts `recipientSessionUrl`).
 * - `GET /payroll/:token`: what the public JSON session shows (`recipientSession` rendered through
 *   `recipientSessionView`, so the page shows nothing the public projection does not): whom it is
 *   for (the recipient's name as the payer wrote it), payer, amount, run, pay period, memo, item
 *   status, paid date, the masked destination, the pending
 *   one awaiting the payer's adoption, and the destination form while `can_submit` (else why not);
 * - `POST /payroll/:token/destination`: the form (a bank account on a rail of the run currency, or
 *   a USDC wallet) turned into the JSON body of `submitDestinationBody`, validated by it and given to
 *   `submitDestination` exactly as `POST /payroll_recipient_sessions/{token}/destination` does; then
 *   303 back to the page, or the page again with the refusal next to its field (status = the error's).
 * An unknown, malformed, replaced or test-mode token throws `not_found`: the pages' one 404.
 */
import type Router from '@koa/router';
import type Koa from 'koa';
import type { BankRail, MaskedBeneficiary } from '../../domain/bank-details';
import { isDomainError } from '../../domain/errors';
import type { Money } from '../../domain/money';
import { railsForCurrency, type MaskedPayrollDestination } from '../../domain/payroll-destinations';
import { payrollPayoutChain, recipientSession, submitDestination } from '../../activities/payroll/destinations';
import { recipientSessionView } from '../../views/payroll-destination';
import type { AppState } from '../context';
import { validate } from '../operation';
import { submitDestinationBody } from '../schemas/payroll-destinations';
import { emptyForm, FormError, formFields, RadioGroup, SelectField, TextField, type FormState } from './forms';
import type { Locale } from './i18n';
import { Layout } from './layout';
import { pageContext, sendPage, type PageContext } from './render';

type Ctx = Koa.ParameterizedContext<AppState>;

/** The recipient session as `recipientSessionView` projects it (views/payroll-destination.ts). */
interface SessionWire {
  recipient_name: string;
  amount: Money;
  run_title: string;
  payer: { display_name: string };
  pay_period_start: string | null;
  pay_period_end: string | null;
  memo: string | null;
  item_status: string;
  paid_at: string | null;
  destination: MaskedPayrollDestination | null;
  pending_destination: MaskedPayrollDestination | null;
  destination_pending_adoption: boolean;
  can_submit: boolean;
  submit_closed_reason: string | null;
}

const pageUrl = (token: string) => `/payroll/${token}`;
const requestRef = (ctx: Ctx) => ({ id: ctx.state.requestId, idempotency_key: null });

/** The detail fields each rail takes (domain/bank-details.ts RAIL_FIELDS), in form order. */
const RAIL_INPUTS: Readonly<Record<BankRail, readonly string[]>> = {
  ach: ['routing_number', 'account_number', 'account_type'],
  wire: ['routing_number', 'account_number'],
  sepa: ['iban', 'bic'],
  faster_payments: ['sort_code', 'account_number'],
  pix: ['pix_key'],
  spei: ['clabe'],
};
const OPTIONAL_INPUTS = new Set(['bic', 'account_type', 'bank_name']);
const NUMERIC_INPUTS = new Set(['routing_number', 'account_number', 'sort_code', 'clabe']);
const WALLET_KEYS = ['chain', 'address'];
const BANK_COMMON = ['account_owner_type', 'account_holder_name', 'rail', 'bank_name'];

/** The detail inputs of the run currency's rails (union over its rails, first-seen order). */
function detailInputs(currency: string): string[] {
  const out: string[] = [];
  for (const rail of railsForCurrency(currency)) for (const f of RAIL_INPUTS[rail]) if (!out.includes(f)) out.push(f);
  return out;
}

/**
 * The JSON body of `submitDestinationBody` from the form's fields (trimmed, empty ones absent):
 * `type` and the fields of that type only (with JavaScript off both groups are on the page); the
 * bank `rail` is the run currency's when it has one rail; `account_type` goes with `ach` only.
 */
export function destinationBodyOf(fields: Record<string, string>, currency: string): Record<string, string> {
  const rails = railsForCurrency(currency);
  const type = fields.type;
  const keys = type === 'wallet' ? WALLET_KEYS : type === 'bank_account' ? [...BANK_COMMON, ...detailInputs(currency)] : [...WALLET_KEYS, ...BANK_COMMON, ...detailInputs(currency)];
  const body: Record<string, string> = {};
  if (type !== undefined) body.type = type;
  for (const k of keys) if (fields[k] !== undefined) body[k] = fields[k];
  if (type === 'bank_account' && body.rail === undefined && rails.length === 1) body.rail = rails[0];
  if (body.rail !== 'ach') delete body.account_type;
  return body;
}

/** The fields the form shows (a refusal naming another field is shown at the top of the form). */
function visibleFields(currency: string): Set<string> {
  const s = new Set(['type', 'account_owner_type', 'account_holder_name', 'bank_name', 'address', ...detailInputs(currency)]);
  if (railsForCurrency(currency).length > 1) s.add('rail');
  return s;
}

/** The re-rendered form of a refused submission: the localized message next to the field the error names, else at the top. */
function refusedForm(e: unknown, values: Record<string, string>, currency: string, locale: Locale): FormState & { status: number } {
  if (!isDomainError(e) || e.status >= 500 || e.type === 'not_found' || e.type === 'rate_limit_error') throw e;
  const errors = locale.copy.payroll.errors;
  const param = e.param?.split('.')[0];
  if (param && visibleFields(currency).has(param)) return { values, errors: { [param]: errors[param] ?? errors.other }, status: e.status };
  const formError = e.type === 'conflict' ? errors.closed : (param && errors[param]) || errors.other;
  return { values, errors: {}, formError, status: e.status };
}

/** Mounts `/payroll/:token` (GET the page, POST the destination form). */
export function mountRecipientPages(r: Router<AppState>): void {
  r.get('/payroll/:token', async (ctx) => {
    const s = recipientSessionView(await recipientSession({ token: ctx.params.token })) as unknown as SessionWire;
    sendPage(ctx, <RecipientPage pc={pageContext(ctx)} s={s} token={ctx.params.token} form={emptyForm()} />);
  });

  r.post('/payroll/:token/destination', async (ctx) => {
    const token = ctx.params.token;
    const inputs = await recipientSession({ token }); // unknown token: the 404 page before the form is read
    const currency = inputs.run.currency;
    const fields = formFields((ctx.request as { body?: unknown }).body);
    try {
      const destination = validate<Parameters<typeof submitDestination>[0]['destination']>(submitDestinationBody, destinationBodyOf(fields, currency), 'body');
      await submitDestination({ token, destination, request: requestRef(ctx) });
    } catch (e) {
      const pc = pageContext(ctx);
      const form = refusedForm(e, fields, currency, pc.locale);
      const s = recipientSessionView(await recipientSession({ token })) as unknown as SessionWire;
      sendPage(ctx, <RecipientPage pc={pc} s={s} token={token} form={form} />, form.status);
      return;
    }
    ctx.status = 303;
    ctx.redirect(pageUrl(token));
  });
}

function periodText(s: SessionWire, locale: Locale): string | null {
  const c = locale.copy.payroll;
  const start = s.pay_period_start ? locale.date(s.pay_period_start) : null;
  const end = s.pay_period_end ? locale.date(s.pay_period_end) : null;
  if (start && end) return c.periodRange(start, end);
  if (start) return c.periodFrom(start);
  if (end) return c.periodUntil(end);
  return null;
}

/** The whole recipient page. */
function RecipientPage(p: { pc: PageContext; s: SessionWire; token: string; form: FormState }) {
  const { pc, s } = p;
  const c = pc.locale.copy.payroll;
  const title = s.payer.display_name ? c.title(s.payer.display_name) : c.titleNoPayer;
  const period = periodText(s, pc.locale);
  return (
    <Layout locale={pc.locale} nonce={pc.nonce} title={title} sandbox={pc.sandbox}>
      <section class="card" aria-labelledby="payment-title">
        {s.recipient_name ? <p class="for-recipient" data-recipient-name>{c.forRecipient(s.recipient_name)}</p> : null}
        <h1 id="payment-title">{title}</h1>
        <p class="amount">{pc.locale.money(s.amount)}</p>
        <dl class="kv">
          <div><dt>{c.run}</dt><dd>{s.run_title}</dd></div>
          {period ? <div><dt>{c.period}</dt><dd>{period}</dd></div> : null}
          {s.memo ? <div><dt>{c.memo}</dt><dd>{s.memo}</dd></div> : null}
          <div><dt>{c.status}</dt><dd class="status">{c.itemStatus[s.item_status] ?? s.item_status}</dd></div>
          {s.paid_at ? <div><dt>{c.paidAt}</dt><dd>{pc.locale.dateTime(s.paid_at)}</dd></div> : null}
        </dl>
      </section>
      <section class="card" aria-labelledby="destination-title">
        <h2 id="destination-title">{c.destinationTitle}</h2>
        {s.destination ? (
          <>
            <h3>{c.destination}</h3>
            <MaskedDestination d={s.destination} locale={pc.locale} />
          </>
        ) : null}
        {s.pending_destination ? (
          <>
            <h3>{c.pending}</h3>
            <p class="hint">{c.pendingHint}</p>
            <MaskedDestination d={s.pending_destination} locale={pc.locale} />
          </>
        ) : null}
        {!s.destination && !s.pending_destination ? <p class="muted">{c.none}</p> : null}
      </section>
      <section class="card" aria-labelledby="submit-title">
        <h2 id="submit-title">{c.submitTitle}</h2>
        {s.can_submit
          ? <DestinationForm pc={pc} token={p.token} currency={s.amount.currency} form={p.form} />
          : (
            <>
              <FormError form={p.form} fallback={c.errors.other} />
              <p class="notice info" role="status">{c.closed[s.submit_closed_reason ?? ''] ?? c.errors.closed}</p>
            </>
          )}
      </section>
    </Layout>
  );
}

/** A masked destination (bank details masked, or the shortened wallet address) as a `<dl class="kv">`. */
function MaskedDestination(p: { d: MaskedPayrollDestination; locale: Locale }) {
  const c = p.locale.copy.payroll;
  const m = c.masked;
  if (p.d.type === 'wallet') {
    return (
      <dl class="kv">
        <div><dt>{m.wallet}</dt><dd>{m.walletOn(p.d.asset, p.d.chain)}</dd></div>
        <div><dt>{m.address}</dt><dd><code>{p.d.address_masked}</code></dd></div>
      </dl>
    );
  }
  const b: MaskedBeneficiary = p.d.bank;
  const rows: Array<[string, string]> = [[m.holder, b.account_holder_name]];
  if (b.bank_name) rows.push([m.bank, b.bank_name]);
  rows.push([m.rail, c.rails[b.rail] ?? b.rail]);
  if (b.account_number_last4) rows.push([m.account, m.accountEnding(b.account_number_last4)]);
  if (b.routing_number) rows.push([m.routing, b.routing_number]);
  if (b.sort_code) rows.push([m.sortCode, b.sort_code]);
  if (b.iban_last4) rows.push([m.iban, m.ibanEnding(b.iban_country ?? '', b.iban_last4)]);
  if (b.bic) rows.push([m.bic, b.bic]);
  if (b.clabe_last4) rows.push([m.clabe, m.accountEnding(b.clabe_last4)]);
  if (b.pix_key_last4) rows.push([m.pixKey, m.pixEnding(b.pix_key_type ?? '', b.pix_key_last4)]);
  return <dl class="kv">{rows.map(([k, v]) => <div><dt>{k}</dt><dd>{v}</dd></div>)}</dl>;
}

/** The destination form: the type choice, the bank fields of the run currency's rails, the wallet fields. */
function DestinationForm(p: { pc: PageContext; token: string; currency: string; form: FormState }) {
  const c = p.pc.locale.copy.payroll;
  const f = p.form;
  const rails = railsForCurrency(p.currency);
  const chain = payrollPayoutChain();
  const label = (name: string) => (OPTIONAL_INPUTS.has(name) ? `${c.fields[name]} ${c.optional}` : c.fields[name]);
  return (
    <form method="post" action={`${pageUrl(p.token)}/destination`} noValidate>
      <p>{c.submitIntro}</p>
      <FormError form={f} fallback={p.pc.locale.copy.formError} />
      <RadioGroup name="type" label={c.type} form={f} options={[['bank_account', c.typeBank], ['wallet', c.typeWallet]]} hint={c.bothGroupsHint} />
      <fieldset class="group" data-show-if="type=bank_account">
        <legend>{c.bankTitle}</legend>
        <RadioGroup name="account_owner_type" label={c.fields.account_owner_type} form={f} options={[['individual', c.individual], ['business', c.business]]} />
        <TextField name="account_holder_name" label={c.fields.account_holder_name} form={f} autocomplete="name" />
        {rails.length > 1
          ? <RadioGroup name="rail" label={c.fields.rail} form={f} checked={rails[0]} options={rails.map((r): [string, string] => [r, c.rails[r] ?? r])} />
          : <p class="hint">{c.railFixed(c.rails[rails[0]] ?? rails[0])}</p>}
        {detailInputs(p.currency).map((name) => (name === 'account_type'
          ? <SelectField name="account_type" label={label(name)} form={f} placeholder={c.notSpecified} options={[['checking', c.checking], ['savings', c.savings]]} />
          : <TextField name={name} label={label(name)} form={f} hint={c.hints[name]} inputmode={NUMERIC_INPUTS.has(name) ? 'numeric' : undefined} />))}
        <TextField name="bank_name" label={label('bank_name')} form={f} autocomplete="off" />
      </fieldset>
      <fieldset class="group" data-show-if="type=wallet">
        <legend>{c.walletTitle}</legend>
        <p class="hint">{c.walletHint(chain.asset, chain.chain)}</p>
        <input type="hidden" name="chain" value={chain.chain} />
        <TextField name="address" label={c.fields.address} form={f} hint={c.hints.address} />
      </fieldset>
      <div class="actions"><button type="submit">{c.submit}</button></div>
    </form>
  );
}
