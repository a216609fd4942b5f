/**
 * The payer's current attempt: its status in words, and what to send where.
 * Crypto rails: address, chain, asset, token contract, the invoice, the 1% payer fee as its own
 * line and the total due (spec 8 "Payer fee"), with copy buttons and a QR code of the EIP-681
 * transfer of exactly what is still due; the cross-network rail adds the bridge fee, what arrives,
 * the quote's expiry counting down and `watcher_state` in words. Bank rails: the instructions with
 * the reference shown as the thing not to forget. Amounts come from the projection's Money (bigint
 * minor units), formatted by the payer's locale.
 */
import { formatMajor, type Money } from '../../../domain/money';
import { erc20TransferUri } from '../../../domain/eip681';
import { Copyable, Ident } from '../layout';
import type { Locale } from '../i18n';
import { QrCode } from '../qr';
import { PAID_PAYMENT_STATUSES, remaining, type DepositInstructions, type PayerPayment } from './model';

const BANK_FIELDS = [
  'beneficiary_name',
  'bank_name',
  'iban',
  'bic',
  'account_number',
  'routing_number',
  'sort_code',
  'clabe',
  'pix_key',
  'bank_address',
] as const;

/** Money minus Money of one currency (the invoice is the total due less the payer fee). */
function minus(a: Money, b: Money): Money {
  return { ...a, amount: (BigInt(a.amount) - BigInt(b.amount)).toString() };
}

/**
 * The status of the attempt in words, announced politely when the live refresh changes it; without
 * JavaScript, a link to reload `pageUrl` (the status changes only on a reload then).
 */
export function PaymentStatus(props: { payment: PayerPayment; locale: Locale; pageUrl: string }) {
  const s = props.locale.copy.pay.status;
  const pay = props.payment;
  const left = remaining(pay.amount_expected, pay.amount_received);
  let tone = 'info';
  let text = s.awaiting;
  if (pay.status === 'underpaid') {
    tone = 'warn';
    text = s.underpaid(props.locale.money(left));
  } else if (pay.status === 'overpaid') {
    tone = 'ok';
    text = s.overpaid(props.locale.money(minus(pay.amount_received, pay.amount_expected)));
  } else if (PAID_PAYMENT_STATUSES.includes(pay.status)) {
    tone = 'ok';
    text = s.paid;
  } else if (pay.status === 'processing' || pay.status === 'funds_received') {
    text = s.confirming;
  } else if (pay.status === 'expired' || pay.status === 'abandoned') {
    tone = 'bad';
    text = s.expired;
  } else if (pay.status === 'unmatched') {
    tone = 'bad';
    text = s.unmatched;
  } else if (pay.return_reason) {
    tone = 'bad';
    text = s.returned;
  }
  const watcher = pay.watcher_state ? s.watcher[pay.watcher_state] : null;
  return (
    <section class="card" aria-labelledby="status-h">
      <h2 id="status-h">{s.heading}</h2>
      <div role="status" aria-live="polite" aria-atomic="true">
        <p class={`notice ${tone} status`} data-payment-status={pay.status}>
          {text}
        </p>
        {watcher ? (
          <p class="notice info" data-watcher-state={pay.watcher_state}>
            {watcher}
          </p>
        ) : null}
      </div>
      {BigInt(pay.amount_received.amount) > 0n ? (
        <dl class="kv">
          <div>
            <dt>{s.received}</dt>
            <dd data-amount-received>{props.locale.money(pay.amount_received)}</dd>
          </div>
          {pay.status === 'underpaid' ? (
            <div class="total">
              <dt>{s.remaining}</dt>
              <dd data-amount-remaining>{props.locale.money(left)}</dd>
            </div>
          ) : null}
        </dl>
      ) : null}
      {pay.status === 'underpaid' ? <p>{pay.bank_deposit_instructions ? s.topUpBank : s.topUpCrypto}</p> : null}
      {pay.marked_sent_at && !PAID_PAYMENT_STATUSES.includes(pay.status) ? <p class="notice info">{s.markedSent}</p> : null}
      <p class="muted live-note" data-js-only hidden>
        {s.live}
      </p>
      <noscript>
        <p class="muted" data-reload-note>
          {s.reloadOnly} <a href={props.pageUrl}>{s.refresh}</a>
        </p>
      </noscript>
    </section>
  );
}

/** What to send on a crypto rail, with the QR code of the transfer still due. */
export function CryptoInstructions(props: { payment: PayerPayment; di: DepositInstructions; locale: Locale }) {
  const c = props.locale.copy.pay.send;
  const { payment: pay, di } = props;
  const xchain = pay.payment_rail === 'crypto_xchain';
  const due =
    pay.status === 'underpaid'
      ? remaining(pay.amount_expected, pay.amount_received)
      : xchain && di.amount
        ? di.amount
        : pay.amount_expected;
  const fee = pay.fee;
  // The QR code asks for the amount shown, on the network and in the token shown: on the
  // cross-network rail the source network's USDC to the bridge's address, gross of the bridge fee.
  const uri =
    di.token_address && di.chain_id && BigInt(due.amount) > 0n
      ? erc20TransferUri({
          tokenAddress: di.token_address,
          chainId: di.chain_id,
          recipient: di.address,
          amountBaseUnits: BigInt(due.amount),
        })
      : null;
  return (
    <section class="card" aria-labelledby="send-h">
      <h2 id="send-h">{c.title}</h2>
      <p class="amount" data-amount-due>
        {props.locale.money(due)}
      </p>
      <dl class="kv">
        {!xchain && fee && pay.status !== 'underpaid' ? (
          <>
            <div>
              <dt>{c.invoice}</dt>
              <dd>{props.locale.money(minus(pay.amount_expected, fee))}</dd>
            </div>
            <div>
              <dt>{c.fee}</dt>
              <dd data-fee>{props.locale.money(fee)}</dd>
            </div>
            <div class="total">
              <dt>{c.total}</dt>
              <dd>{props.locale.money(pay.amount_expected)}</dd>
            </div>
          </>
        ) : null}
        {xchain && di.bridge_fee ? (
          <div>
            <dt>{c.bridgeFee}</dt>
            <dd>{props.locale.money(di.bridge_fee)}</dd>
          </div>
        ) : null}
        {xchain && di.amount_out ? (
          <div>
            <dt>{c.arrives}</dt>
            <dd>{props.locale.money(di.amount_out)}</dd>
          </div>
        ) : null}
      </dl>
      <dl>
        <Copyable id="pay-address" label={c.to} value={di.address} locale={props.locale} />
        <Copyable id="pay-amount" label={`${c.title} (${di.asset ?? ''})`} value={formatMajor(due)} locale={props.locale} />
      </dl>
      <dl class="kv">
        <div>
          <dt>{xchain ? c.network : c.chain}</dt>
          <dd data-chain>{di.chain}</dd>
        </div>
        {di.chain_id ? (
          <div>
            <dt>{c.chainId}</dt>
            <dd>{di.chain_id}</dd>
          </div>
        ) : null}
        <div>
          <dt>{c.asset}</dt>
          <dd data-asset>{di.asset}</dd>
        </div>
      </dl>
      {di.token_address ? (
        <dl>
          <Copyable id="pay-token" label={c.token} value={di.token_address} locale={props.locale} />
        </dl>
      ) : null}
      {xchain && di.quote_expires_at ? (
        <p>
          {c.quoteHeldUntil} <time dateTime={di.quote_expires_at}>{props.locale.dateTime(di.quote_expires_at)}</time>{' '}
          <span
            class="nowrap"
            data-countdown={di.quote_expires_at}
            data-left-text={c.quoteLeft}
            data-expired-text={c.quoteExpired}
            data-js-only
            hidden
          ></span>
        </p>
      ) : null}
      {xchain ? <p class="hint">{c.estimate}</p> : null}
      {uri ? (
        <figure class="center">
          <QrCode text={uri} label={c.qrAlt(uri)} />
          <figcaption class="hint">{c.qrHint}</figcaption>
          <p class="hint">
            <Ident value={uri} attrs={{ 'data-eip681': '' }} />
          </p>
        </figure>
      ) : null}
      <p class="muted">{c.deadline(props.locale.dateTime(di.expires_at))}</p>
    </section>
  );
}

/** What to send on a bank rail: the amount, the account and the reference to type exactly. */
export function BankInstructions(props: { payment: PayerPayment; bank: Record<string, string | null>; locale: Locale }) {
  const c = props.locale.copy.pay.bank;
  const { payment: pay, bank } = props;
  const due = pay.status === 'underpaid' ? remaining(pay.amount_expected, pay.amount_received) : pay.amount_expected;
  return (
    <section class="card" aria-labelledby="bank-h">
      <h2 id="bank-h">{c.title}</h2>
      <p class="amount" data-amount-due>
        {props.locale.money(due)}
      </p>
      {bank.reference ? (
        <>
          <dl>
            <Copyable id="bank-reference" label={c.referenceTitle} value={bank.reference} locale={props.locale} strong />
          </dl>
          <p class="notice warn">{bank.matching === 'account_number' ? c.accountMatched : c.referenceWarning}</p>
        </>
      ) : null}
      <dl>
        {BANK_FIELDS.filter((k) => bank[k]).map((k) => (
          <Copyable id={`bank-${k}`} label={c.fields[k]} value={String(bank[k])} locale={props.locale} />
        ))}
        <Copyable id="bank-amount" label={`${c.amount} (${due.currency})`} value={formatMajor(due)} locale={props.locale} />
      </dl>
      <p class="muted">{props.locale.copy.pay.send.deadline(props.locale.dateTime(pay.expires_at))}</p>
    </section>
  );
}
