/**
 * The payroll recipient's page (spec 4.4 recipient sessions): `/payroll/<prk_token>`, the URL
 * `reissue_link` hands out (views/payroll-destination.ts `recipientSessionUrl`).
 * - `GET /payroll/:token`: what the public JSON session shows (`recipientSession` rendered through
 *   `recipientSessionView`, so the page shows nothing the public projection does not);
 * - `POST /payroll/:token/destination`: the form turned into the JSON body of `submitDestinationBody`
 *   (./form.ts), validated by it and given to `submitDestination` exactly as
 *   `POST /payroll_recipient_sessions/{token}/destination` does; then 303 back to the page, or the
 *   page again with the refusal next to its field (status = the error's).
 * An unknown, malformed, replaced or test-mode token throws `not_found`: the pages' one 404.
 */
import type Router from '@koa/router';
import type Koa from 'koa';
import { recipientSession, submitDestination } from '../../../activities/payroll/destinations';
import { recipientSessionView } from '../../../views/payroll-destination';
import type { AppState } from '../../context';
import { validate } from '../../operation';
import { submitDestinationBody } from '../../schemas/payroll-destinations';
import { emptyForm, formFields } from '../forms';
import { pageContext, sendPage } from '../render';
import { destinationBodyOf, refusedForm } from './form';
import { pageUrl, RecipientPage } from './page';

type Ctx = Koa.ParameterizedContext<AppState>;

const requestRef = (ctx: Ctx) => ({ id: ctx.state.requestId, idempotency_key: null });

/** Mounts `/payroll/:token` (GET the page, POST the destination form). */
export function mountRecipientPages(router: Router<AppState>): void {
  router.get('/payroll/:token', async (ctx) => {
    const s = recipientSessionView(await recipientSession({ token: ctx.params.token }));
    sendPage(ctx, <RecipientPage pc={pageContext(ctx)} s={s} token={ctx.params.token} form={emptyForm()} />);
  });

  router.post('/payroll/:token/destination', async (ctx) => {
    const token = ctx.params.token;
    const inputs = await recipientSession({ token }); // unknown token: the 404 page before the form is read
    const currency = inputs.run.currency;
    const fields = formFields((ctx.request as { body?: unknown }).body);
    try {
      const destination = validate<Parameters<typeof submitDestination>[0]['destination']>(
        submitDestinationBody,
        destinationBodyOf(fields, currency),
        'body',
      );
      await submitDestination({ token, destination, request: requestRef(ctx) });
    } catch (e) {
      const pc = pageContext(ctx);
      const form = refusedForm(e, fields, currency, pc.locale);
      const s = recipientSessionView(await recipientSession({ token }));
      sendPage(ctx, <RecipientPage pc={pc} s={s} token={token} form={form} />, form.status);
      return;
    }
    ctx.status = 303;
    ctx.redirect(pageUrl(token));
  });
}
