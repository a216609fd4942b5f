/**
 * The sandbox's hosted provider pages (issue 22 part 3): `/sandbox/...`, mounted only with the simulator on.
 */
import type Router from '@koa/router';
import type { AppState } from '../../context';

/** Mounts the hosted pages of the sandbox providers (verification links, credit checkouts, order checkouts). */
export function mountSandboxPages(_r: Router<AppState>): void {
  // filled in by the sandbox pages
}
