/**
 * Screening reads (spec 4.8): screenings and their reports of the caller's account and
 * mode. Each takes `(scope, input)` (activities/scope.ts) and reads through the scoped finder.
 */
import type { SelectQueryBuilder } from 'typeorm';
import { notFound } from '../../domain/errors';
import { Screening, ScreeningReport } from '../../entities';
import { db } from '../../lib/db';
import { scoped } from '../../lib/scoped';
import type { AccountScope } from '../scope';

/** `GET /screenings`: the query (alias `s`) of the scope's screenings, optionally on one `chain`; the caller paginates newest first. */
export function screeningListQuery(scope: AccountScope, input: { chain?: string }): SelectQueryBuilder<Screening> {
  const qb = scoped(scope).query(Screening, 's');
  if (input.chain) qb.andWhere('s.chain = :c', { c: input.chain });
  return qb;
}

/** `GET /screenings/{id}`: the scope's screening `id`; 404 `not_found` (param `id`). */
export async function getScreening(scope: AccountScope, input: { id: string }): Promise<Screening> {
  return scoped(scope).getOne(Screening, { id: input.id }, () => notFound(`No such screening: ${input.id}.`, 'id'));
}

/** `GET /screenings/{id}/reports`: the query (alias `r`) of one screening's reports; 404 as get. */
export async function reportListQuery(scope: AccountScope, input: { id: string }): Promise<SelectQueryBuilder<ScreeningReport>> {
  const s = await getScreening(scope, { id: input.id });
  return db().getRepository(ScreeningReport).createQueryBuilder('r').where('r.screening_id = :s', { s: s.id });
}

/** `GET /screenings/{id}/reports/{report_id}`: 404 `not_found` (param `report_id`) unless it is that screening's, of the scope. */
export async function getReport(scope: AccountScope, input: { id: string; report_id: string }): Promise<ScreeningReport> {
  return scoped(scope).getOne(ScreeningReport, { id: input.report_id, screening_id: input.id }, () =>
    notFound(`No such report: ${input.report_id}.`, 'report_id'),
  );
}
