/** Screening reads (spec 4.8; issue 15): screenings and their reports of the caller's account and mode. */
import type { SelectQueryBuilder } from 'typeorm';
import { notFound } from '../../domain/errors';
import { Screening, ScreeningReport } from '../../entities';
import { db } from '../../lib/db';

/** `GET /screenings`: the query (alias `s`), optionally one `chain`; the caller paginates newest first. */
export function screeningListQuery(accountId: string, livemode: boolean, chain: string | undefined): SelectQueryBuilder<Screening> {
  const qb = db().getRepository(Screening).createQueryBuilder('s').where('s.account_id = :a AND s.livemode = :l', { a: accountId, l: livemode });
  if (chain) qb.andWhere('s.chain = :c', { c: chain });
  return qb;
}

/** `GET /screenings/{id}`: 404 `not_found` (param `id`). */
export async function getScreening(accountId: string, livemode: boolean, id: string): Promise<Screening> {
  const s = await db().getRepository(Screening).findOneBy({ id, account_id: accountId, livemode });
  if (!s) throw notFound(`No such screening: ${id}.`, 'id');
  return s;
}

/** `GET /screenings/{id}/reports`: the query (alias `r`) of one screening's reports; 404 as get. */
export async function reportListQuery(accountId: string, livemode: boolean, screeningId: string): Promise<SelectQueryBuilder<ScreeningReport>> {
  const s = await getScreening(accountId, livemode, screeningId);
  return db().getRepository(ScreeningReport).createQueryBuilder('r').where('r.screening_id = :s', { s: s.id });
}

/** `GET /screenings/{id}/reports/{report_id}`: 404 `not_found` (param `report_id`) unless it is that screening's. */
export async function getReport(accountId: string, livemode: boolean, screeningId: string, reportId: string): Promise<ScreeningReport> {
  const r = await db().getRepository(ScreeningReport).findOneBy({ id: reportId, screening_id: screeningId, account_id: accountId, livemode });
  if (!r) throw notFound(`No such report: ${reportId}.`, 'report_id');
  return r;
}
