/** The payer's page (issue 22 part 1). */
import type Router from '@koa/router';
import type { AppState } from '../../context';

/** Mounts the payer's page routes. */
export function mountPayerPages(_r: Router<AppState>): void {
  // being written
}
