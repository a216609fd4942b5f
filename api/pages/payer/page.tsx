/**
 * The payer's page (spec 2.3 `url`, 2.4 payer session, 4.1 payer routes): the
 * header (merchant, opt-in support contact, title, memo, invoice number, line items, amount,
 * expiry), then by state: the rail choice and its inputs, the current attempt's instructions and
 * status, or the receipt. Every action is a plain form (works without JavaScript); `<main>` carries
 * the state key and the live URL the script polls.
 */
import { US_STATES } from '../../../domain/bank-collection';
import { XCHAIN_NETWORKS } from '../../../domain/xchain';
import { FormError, PostForm, RadioGroup, SelectField, TextField, emptyForm, type FormState } from '../forms';
import type { Locale } from '../i18n';
import { Copyable, Ident, Layout } from '../layout';
import type { PageContext } from '../render';
import { BankInstructions, CryptoInstructions, PaymentStatus } from './instructions';
import { OPEN_PAYMENT_STATUSES, PAID_PAYMENT_STATUSES, stateKey, type PayerPageData, type PayerSession } from './model';

/** How this render was asked for: the rail chosen (`?rail=`), a new choice (`?choose=1`), a refused form, a notice. */
export interface PayerView {
  rail: string | null;
  choosing: boolean;
  form: FormState;
  /** The form the refusal belongs to (`payments`, `wallet`, `receipt`, `mark_sent`). */
  formName?: string;
  notice?: string;
  /** The native chain's name (the transfer rail's only source chain). */
  nativeChain: string;
  /** The sandbox payer wallet's address (simulator on), offered by the SANDBOX wallet box. */
  sandboxWallet: string | null;
}

const LINK_PAID = ['paid', 'settled', 'refunded'];

function Header(p: { s: PayerSession; locale: Locale }) {
  const c = p.locale.copy.pay;
  const { s } = p;
  const contact = s.merchant_contact;
  return (
    <header class="card">
      <p class="merchant">{c.requestFrom(s.merchant_name)}</p>
      <h1>{s.title ?? s.invoice_number ?? s.merchant_name}</h1>
      <p class="amount" data-link-amount>
        {p.locale.money(s.amount)}
      </p>
      <dl class="kv">
        {s.invoice_number ? (
          <div>
            <dt>{c.invoiceNumber}</dt>
            <dd>{s.invoice_number}</dd>
          </div>
        ) : null}
        {s.reference_id ? (
          <div>
            <dt>{c.requestNumber}</dt>
            <dd>{s.reference_id}</dd>
          </div>
        ) : null}
        {s.expires_at ? (
          <div>
            <dt>{c.expiresLabel}</dt>
            <dd>
              <time dateTime={s.expires_at}>{p.locale.dateTime(s.expires_at)}</time>
            </dd>
          </div>
        ) : null}
      </dl>
      {s.memo ? (
        <>
          <h2>{c.memo}</h2>
          <p>{s.memo}</p>
        </>
      ) : null}
      {s.items.length > 0 ? (
        <>
          <h2>{c.items}</h2>
          <ul class="items">
            {s.items.map((it) => (
              <li>
                <span>
                  {it.name ?? ''} {c.quantity(it.quantity)}
                </span>
                <span>{it.unit_amount ? p.locale.money(it.unit_amount) : ''}</span>
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {contact && (contact.email || contact.phone || contact.url) ? (
        <p class="muted">
          {c.contact}: {contact.email ? <a href={`mailto:${contact.email}`}>{contact.email}</a> : null}
          {contact.phone ? (
            <>
              {' '}
              <span>{contact.phone}</span>
            </>
          ) : null}
          {contact.url && /^https:\/\//.test(contact.url) ? (
            <>
              {' '}
              <a href={contact.url} rel="noopener noreferrer">
                {contact.url}
              </a>
            </>
          ) : null}
        </p>
      ) : null}
    </header>
  );
}

/** The rails a payer can pick: the session's `rails`, plus the direct transfer where the native rail is payable (spec 4.1). */
export function pickableRails(payerSession: PayerSession): string[] {
  return payerSession.rails.includes('crypto_native') ? [...payerSession.rails, 'crypto_transfer'] : [...payerSession.rails];
}

function RailChoice(p: { d: PayerPageData; locale: Locale; view: PayerView }) {
  const c = p.locale.copy.pay;
  const rails = pickableRails(p.d.session);
  return (
    <section class="card" aria-labelledby="rail-h">
      <form method="get" action={`/pay/${p.d.token}`}>
        <fieldset>
          <legend id="rail-h">
            <h2>{c.howToPay}</h2>
          </legend>
          {rails.map((r, i) => (
            <label class="choice">
              <input type="radio" name="rail" value={r} checked={i === 0} />{' '}
              {r === 'crypto_transfer' ? c.transferOption : (c.rails[r] ?? r)}
            </label>
          ))}
        </fieldset>
        <button type="submit">{c.continue}</button>
      </form>
    </section>
  );
}

function RailForm(p: { d: PayerPageData; locale: Locale; view: PayerView; rail: string }) {
  const c = p.locale.copy.pay;
  const f = p.view.formName === 'payments' ? p.view.form : emptyForm();
  const rail = p.rail;
  const bank = !rail.startsWith('crypto_');
  const us = rail === 'ach' || rail === 'wire';
  const many = pickableRails(p.d.session).length > 1;
  return (
    <section class="card" aria-labelledby="railform-h">
      <h2 id="railform-h">{rail === 'crypto_transfer' ? c.transferOption : (c.rails[rail] ?? rail)}</h2>
      <PostForm action={`/pay/${p.d.token}/payments`}>
        <input type="hidden" name="rail" value={rail} />
        <FormError form={f} fallback={p.locale.copy.formError} />
        {rail === 'crypto_xchain' ? (
          <>
            <SelectField name="network" label={c.fields.network} form={f} options={XCHAIN_NETWORKS.map((n) => [n, n])} />
            <TextField name="refund_address" label={c.fields.refund_address} hint={c.fields.refund_address_hint} form={f} />
            <input type="hidden" name="stablecoin" value="USDC" />
          </>
        ) : null}
        {rail === 'crypto_transfer' ? (
          <>
            <SelectField name="source_chain" label={c.fields.source_chain} form={f} options={[[p.view.nativeChain, p.view.nativeChain]]} />
            <SelectField name="source_asset" label={c.fields.source_asset} form={f} options={[['USDC', 'USDC']]} />
            <TextField name="source_address" label={c.fields.source_address} form={f} />
          </>
        ) : null}
        {bank ? (
          <>
            <RadioGroup
              name="payer_type"
              label={c.fields.payer_type}
              form={f}
              checked="individual"
              options={[
                ['individual', c.fields.payer_type_individual],
                ['business', c.fields.payer_type_business],
              ]}
            />
            {us ? (
              <SelectField
                name="payer_state"
                label={c.fields.payer_state}
                hint={c.fields.payer_state_hint}
                form={f}
                placeholder="—"
                options={US_STATES.map((s) => [s, s])}
              />
            ) : null}
          </>
        ) : null}
        <TextField name="payer_email" type="email" autocomplete="email" label={c.fields.payer_email} form={f} />
        <div class="actions">
          <button type="submit">{c.startPayment}</button>
        </div>
      </PostForm>
      {many ? (
        <p>
          <a href={`/pay/${p.d.token}?choose=1`}>{c.changeMethod}</a>
        </p>
      ) : null}
    </section>
  );
}

/**
 * Pay from a wallet: an injected EIP-1193 wallet (script), and in the sandbox a marked box that pays
 * from the sandbox payer wallet in one click (its address shown), or from another sandbox wallet
 * typed in (folded; open when that field was refused).
 */
function WalletPay(p: { d: PayerPageData; locale: Locale; view: PayerView; sandbox: boolean }) {
  const w = p.locale.copy.pay.wallet;
  const f = p.view.formName === 'wallet' ? p.view.form : emptyForm();
  const action = `/pay/${p.d.token}/sandbox_wallet`;
  return (
    <>
      <section
        class="card eip1193"
        aria-labelledby="wallet-h"
        data-eip1193={`/pay/${p.d.token}/wallet`}
        data-working={w.working}
        data-failed={w.failed}
        hidden
      >
        <h2 id="wallet-h">{w.title}</h2>
        <button type="button" class="secondary" data-eip1193-pay>
          {w.button}
        </button>
        <p class="hint" role="status" data-eip1193-status></p>
      </section>
      {p.sandbox && p.view.sandboxWallet ? (
        <section class="sandbox-box" aria-labelledby="sbxw-h">
          <h2 id="sbxw-h">
            <span class="tag">{p.locale.copy.sandboxTag}</span> {w.sandboxTitle}
          </h2>
          <p class="hint">{w.sandboxHint}</p>
          <FormError form={f} fallback={p.locale.copy.formError} />
          <PostForm action={action}>
            <dl>
              <Copyable id="sbx-wallet" label={w.sandboxAddress} value={p.view.sandboxWallet} locale={p.locale} />
            </dl>
            <input type="hidden" name="from_address" value={p.view.sandboxWallet} />
            <div class="actions">
              <button type="submit" class="sandbox">
                {w.sandboxButton}
              </button>
            </div>
          </PostForm>
          <details open={Boolean(f.errors.from_address)}>
            <summary>{w.otherTitle}</summary>
            <PostForm action={action}>
              <TextField name="from_address" idPrefix="sbx" label={p.locale.copy.pay.fields.from_address} hint={w.otherHint} form={f} />
              <div class="actions">
                <button type="submit" class="sandbox">
                  {w.otherButton}
                </button>
              </div>
            </PostForm>
          </details>
        </section>
      ) : null}
    </>
  );
}

function MarkSent(p: { d: PayerPageData; locale: Locale; view: PayerView }) {
  const pay = p.d.payment!;
  const m = p.locale.copy.pay.markSent;
  const f = p.view.formName === 'mark_sent' ? p.view.form : emptyForm();
  if (pay.marked_sent_at || !['awaiting', 'underpaid'].includes(pay.status)) return null;
  return (
    <section class="card">
      <PostForm action={`/pay/${p.d.token}/mark_sent`}>
        <FormError form={f} fallback={p.locale.copy.formError} />
        <input type="hidden" name="payment_id" value={pay.id} />
        <p class="hint" id="marksent-hint">
          {m.hint}
        </p>
        <button type="submit" class="secondary" aria-describedby="marksent-hint">
          {m.button}
        </button>
      </PostForm>
    </section>
  );
}

function Receipt(p: { d: PayerPageData; locale: Locale; view: PayerView }) {
  const r = p.locale.copy.pay.receipt;
  const { session: s, payment: pay } = p.d;
  const f = p.view.formName === 'receipt' ? p.view.form : emptyForm();
  const paidAt = pay?.paid_at ?? s.paid_at;
  return (
    <section class="card" aria-labelledby="receipt-h">
      <h2 id="receipt-h">{r.title}</h2>
      <dl class="kv">
        {pay ? (
          <div>
            <dt>{r.amount}</dt>
            <dd data-receipt-amount>{p.locale.money(pay.amount_received)}</dd>
          </div>
        ) : null}
        {paidAt ? (
          <div>
            <dt>{r.paidAt}</dt>
            <dd>
              <time dateTime={paidAt}>{p.locale.dateTime(paidAt)}</time>
            </dd>
          </div>
        ) : null}
        {s.reference_id ? (
          <div>
            <dt>{r.requestNumber}</dt>
            <dd>{s.reference_id}</dd>
          </div>
        ) : null}
        {pay?.onchain_tx_hash ? (
          <div>
            <dt>{r.transaction}</dt>
            <dd>
              <Ident value={pay.onchain_tx_hash} />
            </dd>
          </div>
        ) : null}
      </dl>
      <h3>{r.emailTitle}</h3>
      {p.view.notice ? (
        <p class="notice ok" role="status">
          {p.view.notice}
        </p>
      ) : null}
      <PostForm action={`/pay/${p.d.token}/receipt_email`}>
        <FormError form={f} fallback={p.locale.copy.formError} />
        <TextField name="email" type="email" autocomplete="email" idPrefix="receipt" label={p.locale.copy.pay.fields.email} form={f} />
        <div class="actions">
          <button type="submit" class="secondary">
            {r.send}
          </button>
        </div>
      </PostForm>
    </section>
  );
}

/** The content of `<main>` for one state (also the live refresh's fragment). */
export function PayerMain(props: { d: PayerPageData; pc: PageContext; view: PayerView }) {
  const { d, view } = props;
  const { locale } = props.pc;
  const c = locale.copy.pay;
  const s = d.session;
  const pay = d.payment;
  const url = `/pay/${d.token}`;
  const paid = LINK_PAID.includes(s.status) || (pay !== null && PAID_PAYMENT_STATUSES.includes(pay.status));
  let body;
  if (paid) {
    body = (
      <>
        {pay ? (
          <PaymentStatus payment={pay} locale={locale} pageUrl={url} />
        ) : (
          <p class="notice ok" role="status">
            {c.status.paid}
          </p>
        )}
        <Receipt d={d} locale={locale} view={view} />
      </>
    );
  } else if (s.status === 'cancelled') {
    body = (
      <>
        <p class="notice bad" role="status" data-link-status="cancelled">
          {c.cancelled}
        </p>
        {pay ? <PaymentStatus payment={pay} locale={locale} pageUrl={url} /> : null}
      </>
    );
  } else if (s.status === 'expired') {
    body = (
      <>
        <p class="notice bad" role="status" data-link-status="expired">
          {c.expired}
        </p>
        {pay ? <PaymentStatus payment={pay} locale={locale} pageUrl={url} /> : null}
      </>
    );
  } else if (pay && OPEN_PAYMENT_STATUSES.includes(pay.status) && !view.choosing) {
    const nothingYet = BigInt(pay.amount_received.amount) === 0n && pay.status === 'awaiting';
    body = (
      <>
        <PaymentStatus payment={pay} locale={locale} pageUrl={url} />
        {pay.deposit_instructions ? <CryptoInstructions payment={pay} di={pay.deposit_instructions} locale={locale} /> : null}
        {pay.bank_deposit_instructions ? <BankInstructions payment={pay} bank={pay.bank_deposit_instructions} locale={locale} /> : null}
        <MarkSent d={d} locale={locale} view={view} />
        {pay.payment_rail === 'crypto_native' && nothingYet ? (
          <WalletPay d={d} locale={locale} view={view} sandbox={props.pc.sandbox} />
        ) : null}
        {nothingYet && pickableRails(s).length > 1 ? (
          <p>
            <a href={`${url}?choose=1`}>{c.changeMethod}</a>
          </p>
        ) : null}
      </>
    );
  } else if (s.rails.length === 0) {
    body = (
      <>
        {pay ? <PaymentStatus payment={pay} locale={locale} pageUrl={url} /> : null}
        <p class="notice bad" role="status">
          {c.notPayable}
        </p>
      </>
    );
  } else {
    const rails = pickableRails(s);
    const chosen = view.rail && rails.includes(view.rail) ? view.rail : rails.length === 1 ? rails[0] : null;
    body = (
      <>
        {pay ? <PaymentStatus payment={pay} locale={locale} pageUrl={url} /> : null}
        {pay && OPEN_PAYMENT_STATUSES.includes(pay.status) ? (
          <p>
            <a href={url}>{c.backToPayment}</a>
          </p>
        ) : null}
        {chosen ? <RailForm d={d} locale={locale} view={view} rail={chosen} /> : <RailChoice d={d} locale={locale} view={view} />}
        {chosen === 'crypto_native' ? <WalletPay d={d} locale={locale} view={view} sandbox={props.pc.sandbox} /> : null}
      </>
    );
  }
  return (
    <>
      <Header s={s} locale={locale} />
      {body}
    </>
  );
}

/** The whole payer page document. */
export function PayerDocument(props: { d: PayerPageData; pc: PageContext; view: PayerView }) {
  const title = `${props.d.session.title ?? props.d.session.merchant_name} · ${props.pc.locale.money(props.d.session.amount)}`;
  return (
    <Layout
      locale={props.pc.locale}
      nonce={props.pc.nonce}
      title={title}
      sandbox={props.pc.sandbox}
      live={{ url: `/pay/${props.d.token}/live`, state: stateKey(props.d) }}
    >
      <PayerMain d={props.d} pc={props.pc} view={props.view} />
    </Layout>
  );
}
