/**
 * The recipient page's components (spec 4.4 recipient sessions): the item (whom it is for, payer,
 * amount, run, pay period, memo, item status, paid date), the masked destination and the pending
 * one awaiting the payer's adoption, and the destination form while `can_submit` (else why not).
 * They render the typed recipient session view (views/payroll-destination.ts `RecipientSession`).
 */
import type { MaskedBeneficiary } from '../../../domain/bank-details';
import { railsForCurrency } from '../../../domain/payroll-destinations';
import { payrollPayoutChain } from '../../../activities/payroll/destinations';
import type { RecipientSession } from '../../../views/payroll-destination';
import { FormError, RadioGroup, SelectField, TextField, type FormState } from '../forms';
import type { Locale } from '../i18n';
import { Layout } from '../layout';
import type { PageContext } from '../render';
import { detailInputs, NUMERIC_INPUTS, OPTIONAL_INPUTS } from './form';

/** The page of a recipient session token. */
export const pageUrl = (token: string): string => `/payroll/${token}`;

function periodText(s: RecipientSession, locale: Locale): string | null {
  const c = locale.copy.payroll;
  const start = s.pay_period_start ? locale.date(s.pay_period_start) : null;
  const end = s.pay_period_end ? locale.date(s.pay_period_end) : null;
  if (start && end) return c.periodRange(start, end);
  if (start) return c.periodFrom(start);
  if (end) return c.periodUntil(end);
  return null;
}

/** The whole recipient page. */
export function RecipientPage(props: { pc: PageContext; s: RecipientSession; token: string; form: FormState }) {
  const { pc, s } = props;
  const c = pc.locale.copy.payroll;
  const title = s.payer.display_name ? c.title(s.payer.display_name) : c.titleNoPayer;
  const period = periodText(s, pc.locale);
  return (
    <Layout locale={pc.locale} nonce={pc.nonce} title={title} sandbox={pc.sandbox}>
      <section class="card" aria-labelledby="payment-title">
        {s.recipient_name ? (
          <p class="for-recipient" data-recipient-name>
            {c.forRecipient(s.recipient_name)}
          </p>
        ) : null}
        <h1 id="payment-title">{title}</h1>
        <p class="amount">{pc.locale.money(s.amount)}</p>
        <dl class="kv">
          <div>
            <dt>{c.run}</dt>
            <dd>{s.run_title}</dd>
          </div>
          {period ? (
            <div>
              <dt>{c.period}</dt>
              <dd>{period}</dd>
            </div>
          ) : null}
          {s.memo ? (
            <div>
              <dt>{c.memo}</dt>
              <dd>{s.memo}</dd>
            </div>
          ) : null}
          <div>
            <dt>{c.status}</dt>
            <dd class="status">{c.itemStatus[s.item_status] ?? s.item_status}</dd>
          </div>
          {s.paid_at ? (
            <div>
              <dt>{c.paidAt}</dt>
              <dd>{pc.locale.dateTime(s.paid_at)}</dd>
            </div>
          ) : null}
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
        {s.can_submit ? (
          <DestinationForm pc={pc} token={props.token} currency={s.amount.currency} form={props.form} />
        ) : (
          <>
            <FormError form={props.form} fallback={c.errors.other} />
            <p class="notice info" role="status">
              {c.closed[s.submit_closed_reason ?? ''] ?? c.errors.closed}
            </p>
          </>
        )}
      </section>
    </Layout>
  );
}

/** A masked destination (bank details masked, or the shortened wallet address) as a `<dl class="kv">`. */
function MaskedDestination(p: { d: NonNullable<RecipientSession['destination']>; locale: Locale }) {
  const c = p.locale.copy.payroll;
  const m = c.masked;
  if (p.d.type === 'wallet') {
    return (
      <dl class="kv">
        <div>
          <dt>{m.wallet}</dt>
          <dd>{m.walletOn(p.d.asset, p.d.chain)}</dd>
        </div>
        <div>
          <dt>{m.address}</dt>
          <dd>
            <code>{p.d.address_masked}</code>
          </dd>
        </div>
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
  return (
    <dl class="kv">
      {rows.map(([k, v]) => (
        <div>
          <dt>{k}</dt>
          <dd>{v}</dd>
        </div>
      ))}
    </dl>
  );
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
      <RadioGroup
        name="type"
        label={c.type}
        form={f}
        options={[
          ['bank_account', c.typeBank],
          ['wallet', c.typeWallet],
        ]}
        hint={c.bothGroupsHint}
      />
      <fieldset class="group" data-show-if="type=bank_account">
        <legend>{c.bankTitle}</legend>
        <RadioGroup
          name="account_owner_type"
          label={c.fields.account_owner_type}
          form={f}
          options={[
            ['individual', c.individual],
            ['business', c.business],
          ]}
        />
        <TextField name="account_holder_name" label={c.fields.account_holder_name} form={f} autocomplete="name" />
        {rails.length > 1 ? (
          <RadioGroup
            name="rail"
            label={c.fields.rail}
            form={f}
            checked={rails[0]}
            options={rails.map((r): [string, string] => [r, c.rails[r] ?? r])}
          />
        ) : (
          <p class="hint">{c.railFixed(c.rails[rails[0]] ?? rails[0])}</p>
        )}
        {detailInputs(p.currency).map((name) =>
          name === 'account_type' ? (
            <SelectField
              name="account_type"
              label={label(name)}
              form={f}
              placeholder={c.notSpecified}
              options={[
                ['checking', c.checking],
                ['savings', c.savings],
              ]}
            />
          ) : (
            <TextField
              name={name}
              label={label(name)}
              form={f}
              hint={c.hints[name]}
              inputmode={NUMERIC_INPUTS.has(name) ? 'numeric' : undefined}
            />
          ),
        )}
        <TextField name="bank_name" label={label('bank_name')} form={f} autocomplete="off" />
      </fieldset>
      <fieldset class="group" data-show-if="type=wallet">
        <legend>{c.walletTitle}</legend>
        <p class="hint">{c.walletHint(chain.asset, chain.chain)}</p>
        <input type="hidden" name="chain" value={chain.chain} />
        <TextField name="address" label={c.fields.address} form={f} hint={c.hints.address} />
      </fieldset>
      <div class="actions">
        <button type="submit">{c.submit}</button>
      </div>
    </form>
  );
}
