/**
 * Wire projections of screenings, screening reports, traces and on-chain transactions (spec 2.9,
 * 4.8; shapes ours where the spec is silent, docs/decisions/0046-screening.md).
 */
import Joi from 'joi';
import type { Screening, ScreeningReport } from '../entities';
import { at, bool, int, kind, money, text, textOrNull, strings } from './schema';
import type { ScreeningsCreate, ScreeningsReportsCreate, TracesCreate, TransactionsGet } from './wire';
import type { TraceDirection } from '../domain/screening';

/** A screening (`scr_`): a signal, never a block; `action` a suggestion. */
export function screeningView(screening: Screening): ScreeningsCreate {
  return {
    id: screening.id,
    object: 'screening',
    livemode: screening.livemode,
    address: screening.address,
    chain: screening.chain,
    risk_score: screening.risk_score,
    risk_level: screening.risk_level,
    verdict: screening.verdict,
    action: screening.action,
    cached: screening.cached,
    flags: [...screening.flags],
    confidence: screening.confidence,
    coverage: [...screening.coverage],
    provider_version: screening.provider_version,
    screened_at: screening.screened_at.toISOString(),
    updated_at: screening.updated_at.toISOString(),
    created_at: screening.created_at.toISOString(),
  };
}

export const screeningResponse = Joi.object({
  id: text(),
  object: kind('screening'),
  livemode: bool(),
  address: text(),
  chain: text(),
  risk_score: int(),
  risk_level: Joi.string().valid('low', 'medium', 'high', 'severe').required(),
  verdict: Joi.string().valid('clear', 'review', 'high_risk').required(),
  action: Joi.string().valid('proceed', 'review', 'avoid').required(),
  cached: bool(),
  flags: strings(),
  confidence: text(),
  coverage: strings(),
  provider_version: text(),
  screened_at: at(),
  updated_at: at(),
  created_at: at(),
});

/** A screening report (`srp_`): the certified figures, how it was paid (`credit`), its data hash and evidence PDF path. */
export function screeningReportView(screeningReport: ScreeningReport): ScreeningsReportsCreate {
  return {
    id: screeningReport.id,
    object: 'screening_report',
    livemode: screeningReport.livemode,
    screening_id: screeningReport.screening_id,
    cached: screeningReport.cached,
    cached_from: screeningReport.cached_from,
    // A report is paid only by consume_free, consume_paid or cache_hit (activities/screenings/commands.ts createReport).
    credit: {
      ledger_type: screeningReport.credit_event_type as ScreeningsReportsCreate['credit']['ledger_type'],
      credit_event_id: screeningReport.credit_event_id,
    },
    figures: { ...screeningReport.figures, flags: [...screeningReport.figures.flags], coverage: [...screeningReport.figures.coverage] },
    data_sha256: screeningReport.data_sha256,
    evidence_pdf_url: `/v1/screenings/${screeningReport.screening_id}/reports/${screeningReport.id}/evidence_pdf`,
    created_at: screeningReport.created_at.toISOString(),
  };
}

export const screeningReportResponse = Joi.object({
  id: text(),
  object: kind('screening_report'),
  livemode: bool(),
  screening_id: text(),
  cached: bool(),
  cached_from: textOrNull(),
  credit: Joi.object({
    ledger_type: Joi.string().valid('consume_free', 'consume_paid', 'cache_hit').required(),
    credit_event_id: textOrNull(),
  }).required(),
  figures: Joi.object({
    screening_id: text(),
    chain: text(),
    address: text(),
    risk_score: int(),
    risk_level: text(),
    verdict: text(),
    action: text(),
    flags: strings(),
    confidence: text(),
    coverage: strings(),
    provider_version: text(),
    screened_at: at(),
  }).required(),
  data_sha256: Joi.string()
    .pattern(/^[0-9a-f]{64}$/)
    .required(),
  evidence_pdf_url: text(),
  created_at: at(),
});

type Transfer = {
  chain: string;
  asset: string;
  from_address: string | null;
  to_address: string;
  amount: bigint;
  decimals: number;
  tx_hash: string;
  block: number | null;
  at: Date;
  status: 'confirmed' | 'pending';
};

/** One transfer on a chain (trace edge or transaction lookup). */
export function chainTransferView(transfer: Transfer): TracesCreate['edges'][number] {
  return {
    hash: transfer.tx_hash,
    chain: transfer.chain,
    from_address: transfer.from_address,
    to_address: transfer.to_address,
    amount: { amount: transfer.amount.toString(), currency: transfer.asset, decimals: transfer.decimals },
    block_number: transfer.block,
    status: transfer.status,
    created_at: transfer.at.toISOString(),
  };
}

const transferFields = {
  hash: text(),
  chain: text(),
  from_address: textOrNull(),
  to_address: text(),
  amount: money(),
  block_number: Joi.number().integer().allow(null).required(),
  status: Joi.string().valid('confirmed', 'pending').required(),
  created_at: at(),
};

/** `GET /transactions/{chain}/{hash}`. */
export function chainTransactionView(value: Transfer & { confirmations: number }): TransactionsGet {
  return { ...chainTransferView(value), object: 'chain_transaction', confirmations: value.confirmations };
}
export const chainTransactionResponse = Joi.object({ ...transferFields, object: kind('chain_transaction'), confirmations: int() });

/** `POST /traces`: the addresses reached (hop count) and the transfers followed. */
export function traceView(tr: {
  chain: string;
  depth: number;
  direction: TraceDirection;
  nodes: Array<{ address: string; hop: number }>;
  edges: Transfer[];
  truncated: boolean;
}): TracesCreate {
  return {
    object: 'trace',
    chain: tr.chain,
    depth: tr.depth,
    direction: tr.direction,
    truncated: tr.truncated,
    nodes: tr.nodes.map((n) => ({ address: n.address, hop: n.hop })),
    edges: tr.edges.map((e) => chainTransferView(e)),
  };
}
export const traceResponse = Joi.object({
  object: kind('trace'),
  chain: text(),
  depth: int(),
  direction: Joi.string().valid('incoming', 'outgoing', 'both').required(),
  truncated: bool(),
  nodes: Joi.array()
    .items(Joi.object({ address: text(), hop: int() }))
    .required(),
  edges: Joi.array().items(Joi.object(transferFields)).required(),
});
