/**
 * Every magic value of the sandbox, defined once: test bank account numbers, the
 * magic sender of a bank credit, the KYC provider's decisions, the address screening's risk bands,
 * the provider faults and the quote providers' behaviours. The sandbox providers import their
 * values from here; `SANDBOX_VALUES` lists them all (value, where it applies, what it does) and
 * `sandboxValuesMarkdown()` renders that list as the Markdown table of the `/sim` document
 * (api/sim-openapi.ts) and of README.md (`npm run sandbox:values`).
 *
 * Pure: no I/O.
 */
import { REJECTION_GUIDANCE } from '../domain/customers';

/** One magic value: what to type, where, and what the sandbox then does. */
export interface SandboxValue {
  /** The value as typed (Markdown code spans where literal). */
  value: string;
  /** Where it applies (the field, route or call that takes it). */
  where: string;
  /** What the sandbox does with it. */
  effect: string;
}

// ----- Fiat rails (payouts to a bank on an instant rail: payroll items, off-ramps)

/** Test account numbers (their last four digits, on every rail): this ending fails with `no_account`. */
export const SANDBOX_FAILING_ACCOUNT_SUFFIX = '1116';
/** The failure reason of the failing test account. */
export const SANDBOX_FAILING_REASON = 'no_account';
/** Test account numbers: this ending is paid, then returned by the beneficiary's bank. */
export const SANDBOX_RETURNED_ACCOUNT_SUFFIX = '1113';
/** The beneficiary bank's return text of the returned test account (the provider's own words). */
export const SANDBOX_RETURNED_TEXT = 'R02 Account closed';

// ----- Bank collection (inbound bank transfers)

/** Magic `sender_name` of a bank credit: the sending bank returns the credit at once (R01). */
export const SANDBOX_RETURN_SENDER = 'RETURN_ME';
/** Return reason text of the magic sender, and of a return without a reason (the provider's own words). */
export const SANDBOX_RETURN_TEXT = 'R01 Insufficient funds';

// ----- KYC provider

/** The decisions the KYC provider can play (`POST /sim/kyc/decisions` `state`), with what the customer then shows. */
export const KYC_DECISIONS = Object.freeze([
  { state: 'pending', effect: 'The provider waits for the person (`customer.verification_state_changed`).' },
  { state: 'under_review', effect: 'The provider reviews what the person gave (`customer.verification_state_changed`).' },
  { state: 'approved', effect: 'Verified (`verified_at` set); `endorsements` name the rails it unlocks.' },
  { state: 'rejected', effect: 'Refused with `rejection_outcome` (`customer.rejected`).' },
  { state: 'stale_mapping', effect: "The provider's record no longer matches: `GET /v1/customers` answers `409 customer_mapping_stale`." },
  { state: 'action_required', effect: 'More information is due: `requirements_due` (`customer.requirements_updated`).' },
] as const);
/** Every state `POST /sim/kyc/decisions` accepts. */
export const KYC_DECISION_STATES = Object.freeze(KYC_DECISIONS.map((d) => d.state));
/** The rejection outcomes the KYC provider reports (domain/customers.ts guidance). */
export const KYC_REJECTION_OUTCOMES = Object.freeze(Object.keys(REJECTION_GUIDANCE));

// ----- Address screening

/** An address without a simulator signal scores below this (0..19, from a hash of chain and address). */
export const SANDBOX_SCREENING_DEFAULT_SCORE_BELOW = 20;
/** Risk level, verdict and suggested action of a 0..100 score: the first band whose `below` exceeds it. */
export const SCREENING_RISK_BANDS = Object.freeze([
  { below: 25, risk_level: 'low', verdict: 'clear', action: 'proceed' },
  { below: 50, risk_level: 'medium', verdict: 'review', action: 'review' },
  { below: 75, risk_level: 'high', verdict: 'high_risk', action: 'avoid' },
  { below: 101, risk_level: 'severe', verdict: 'high_risk', action: 'avoid' },
] as const);

// ----- Quote providers and their orders

/** The sandbox quote providers (providers/quote-providers.ts), in fan-out order. */
export const QUOTE_PROVIDER_IDS = ['native_fiat', 'rampline', 'coinvia', 'swapworks', 'harbor'] as const;
export type QuoteProviderId = (typeof QUOTE_PROVIDER_IDS)[number];
/** Sandbox behaviour of each quote provider: always paused, and its answer latency without a fault (ms). */
export const QUOTE_PROVIDER_SANDBOX: Readonly<Record<QuoteProviderId, { paused: boolean; defaultLatencyMs: number }>> = Object.freeze({
  native_fiat: { paused: false, defaultLatencyMs: 30 },
  rampline: { paused: false, defaultLatencyMs: 60 },
  coinvia: { paused: false, defaultLatencyMs: 90 },
  swapworks: { paused: false, defaultLatencyMs: 45 },
  harbor: { paused: true, defaultLatencyMs: 0 },
});
/** Rails with no recall: the native fiat provider refuses to cancel an order paid on them. */
export const NO_RECALL_RAILS = Object.freeze(['wire', 'pix', 'spei'] as const);

// ----- Provider faults (`POST /sim/providers/faults`, per account)

const PER_PROVIDER = (name: string): string[] => QUOTE_PROVIDER_IDS.map((p) => name.replace('<provider>', p));

/** Every fault, with the value it takes and what it does. `<provider>` stands for each quote provider id. */
export const FAULTS = Object.freeze([
  {
    name: 'bridge.create_delay_ms',
    value: 'milliseconds',
    effect: 'The payout bridge records a transfer, then answers that many ms late.',
  },
  { name: 'wallet.close_fails', value: '`true`', effect: 'Unsigned wallet sends cannot be closed.' },
  { name: 'fiat_rails.submit_delay_ms', value: 'milliseconds', effect: 'The fiat rail records a payment, then answers that many ms late.' },
  { name: 'offramp.refund_fails', value: '`true`', effect: "An off-ramp's USDC cannot be sent back." },
  {
    name: 'bank_collection.issue_fails',
    value: '`true`',
    effect:
      'The bank collection provider fails to issue instructions (an upstream 502): payroll funding instructions are `failed` `provider_error`, retryable.',
  },
  { name: 'legal.registry_unavailable', value: '`true`', effect: 'The terms acceptance registry cannot be read.' },
  {
    name: 'quotes.<provider>.latency_ms',
    value: 'milliseconds',
    effect: 'The quote provider answers that many ms late (past the deadline: `timed_out`).',
  },
  { name: 'quotes.<provider>.failure_rate', value: '0 to 1', effect: "The share of the quote provider's calls that fail (`failed`)." },
  {
    name: 'orders.<provider>.unavailable',
    value: '`true`',
    effect: "The provider's order API is out: placing or cancelling an order answers 503.",
  },
  {
    name: 'buy_sell.coverage',
    value: '`cold` or `stale`',
    effect: 'The buy/sell coverage snapshot is not usable: `GET /v1/capabilities?product=buy_sell` answers 503.',
  },
] as const);

/** Known fault names, `<provider>` expanded (the simulator refuses others). */
export const FAULT_NAMES = Object.freeze(
  FAULTS.flatMap((f) => (f.name.includes('<provider>') ? PER_PROVIDER(f.name) : [f.name])),
) as readonly FaultName[];
type Expand<N extends string> = N extends `${infer A}<provider>${infer B}` ? `${A}${QuoteProviderId}${B}` : N;
export type FaultName = Expand<(typeof FAULTS)[number]['name']>;

// ----- The list

const code = (s: string): string => `\`${s}\``;
const bankDestination =
  'The account identifier (account number, IBAN, CLABE or PIX key) of a bank destination paid on an instant rail: payroll items, off-ramps';

/** Every magic value of the sandbox, in the order a sandbox journey meets them. */
export const SANDBOX_VALUES: readonly SandboxValue[] = Object.freeze([
  {
    value: `digits ending ${code(SANDBOX_FAILING_ACCOUNT_SUFFIX)}`,
    where: bankDestination,
    effect: `The rail payment fails with \`${SANDBOX_FAILING_REASON}\` (a payroll item's \`failure_reason\`). E.g. US \`00011111${SANDBOX_FAILING_ACCOUNT_SUFFIX}\`.`,
  },
  {
    value: `digits ending ${code(SANDBOX_RETURNED_ACCOUNT_SUFFIX)}`,
    where: bankDestination,
    effect: `Paid, then returned by the recipient's bank with \`${SANDBOX_RETURNED_TEXT}\` (a payroll item's \`return_reason\`). Any other ending is paid at once.`,
  },
  {
    value: code(SANDBOX_RETURN_SENDER),
    where: '`sender_name` of `POST /sim/bank/credits`',
    effect: `The sending bank returns the credit at once: \`"${SANDBOX_RETURN_TEXT}"\` (also the reason of \`POST /sim/bank/credits/{id}/return\` without one).`,
  },
  ...KYC_DECISIONS.map((d) => ({ value: code(d.state), where: '`state` of `POST /sim/kyc/decisions`', effect: d.effect })),
  ...KYC_REJECTION_OUTCOMES.map((o) => ({
    value: code(o),
    where: '`rejection_outcome` of `POST /sim/kyc/decisions` (with `state: rejected`)',
    effect: REJECTION_GUIDANCE[o],
  })),
  {
    value: 'an address without a signal',
    where: 'Address screening (address book create and `recheck`)',
    effect: `Scores 0 to ${SANDBOX_SCREENING_DEFAULT_SCORE_BELOW - 1} (\`low\`, \`clear\`), fixed per chain and address.`,
  },
  ...SCREENING_RISK_BANDS.map((b, i) => ({
    value: `\`risk_score\` ${i === 0 ? 0 : SCREENING_RISK_BANDS[i - 1].below} to ${b.below - 1}`,
    where: '`POST /sim/providers/screening/signals`',
    effect: `\`risk_level: ${b.risk_level}\`, \`verdict: ${b.verdict}\`, \`action: ${b.action}\`.`,
  })),
  {
    value: '`unavailable: true`',
    where: '`POST /sim/providers/screening/signals`',
    effect:
      'The screening provider is out for that address: a create records `screening.status: unavailable`; a `recheck` answers `503 screening_unavailable` and keeps the previous result.',
  },
  ...QUOTE_PROVIDER_IDS.map((id) => ({
    value: code(id),
    where: 'Quote provider (`POST /v1/quotes` `providers[]`)',
    effect: QUOTE_PROVIDER_SANDBOX[id].paused
      ? 'Always `paused`: reported, never offered.'
      : `Answers after ${QUOTE_PROVIDER_SANDBOX[id].defaultLatencyMs} ms without a fault.${id === 'native_fiat' ? ` Refuses to cancel an order on a rail with no recall (${NO_RECALL_RAILS.map(code).join(', ')}): \`409 cancel_unavailable\`.` : ''}`,
  })),
  ...FAULTS.map((f) => ({
    value: code(f.name),
    where: `\`name\` of \`POST /sim/providers/faults\` (value: ${f.value}; per account)`,
    effect: f.effect,
  })),
]);

/** The Markdown table of `SANDBOX_VALUES` (`| Value | Where | What it does |`), one row per value, ending with a newline. */
export function sandboxValuesMarkdown(values: readonly SandboxValue[] = SANDBOX_VALUES): string {
  const cell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  return [
    '| Value | Where | What it does |',
    '|---|---|---|',
    ...values.map((v) => `| ${cell(v.value)} | ${cell(v.where)} | ${cell(v.effect)} |`),
    '',
  ].join('\n');
}
