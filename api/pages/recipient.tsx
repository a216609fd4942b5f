/**
 * The payroll recipient's page (issue 22 part 2): `/payroll/<prk_token>`. Built by a follow-up
 * commit on the recipient session commands (activities/payroll/destinations.ts).
 */
import type Router from '@koa/router';
import type { AppState } from '../context';

/** Mounts `/payroll/:token` (GET the page, POST the destination form). */
export function mountRecipientPages(_r: Router<AppState>): void {
  // filled in by the recipient page
}
