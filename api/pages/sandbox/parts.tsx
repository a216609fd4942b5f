/**
 * What the sandbox's hosted provider pages share: the frame of a page marked
 * SANDBOX (the Layout banner, a tag in the heading), the state sentence, the box of SANDBOX buttons
 * (one POST form, a button per action: works without JavaScript), and the action handler (303 back
 * to the page; a refused action renders the page again, 409, with a notice).
 */
import type Koa from 'koa';
import type { ComponentChildren } from 'preact';
import { isDomainError } from '../../../domain/errors';
import type { AppState } from '../../context';
import { Layout } from '../layout';
import { pageContext, type PageContext } from '../render';

export type Ctx = Koa.ParameterizedContext<AppState>;

/** A sandbox page: the document with `title` as its one h1 (tagged SANDBOX), the provider note, then `children`. */
export function SandboxPage(props: { pc: PageContext; title: string; refused?: string; children: ComponentChildren }) {
  const c = props.pc.locale.copy;
  return (
    <Layout locale={props.pc.locale} nonce={props.pc.nonce} title={`${c.sandboxTag}: ${props.title}`} sandbox>
      <section class="card" aria-labelledby="page-title">
        <h1 id="page-title">
          <span class="tag">{c.sandboxTag}</span> {props.title}
        </h1>
        <p class="muted">{c.sandbox.pageNote}</p>
        {props.refused ? (
          <p class="form-error" role="alert">
            {props.refused}
          </p>
        ) : null}
        {props.children}
      </section>
    </Layout>
  );
}

/** The object's state as a sentence (`tone`: ok, bad or info). */
export function StateNotice(props: { text: string; tone: 'ok' | 'bad' | 'info' }) {
  return (
    <p class={`notice ${props.tone}`} role="status">
      {props.text}
    </p>
  );
}

/** One SANDBOX action: the posted `action` value, its label (starting "SANDBOX: "). */
export interface SandboxButton {
  value: string;
  label: string;
}

/** The box of SANDBOX buttons: one POST form to `action`; nothing when no button applies. */
export function SandboxActions(props: { pc: PageContext; action: string; title?: string; hint?: string; buttons: SandboxButton[] }) {
  if (props.buttons.length === 0) return null;
  return (
    <div class="sandbox-box">
      <h2>{props.title ?? props.pc.locale.copy.sandbox.actionsTitle}</h2>
      {props.hint ? <p class="hint">{props.hint}</p> : null}
      <form method="post" action={props.action}>
        <div class="actions">
          {props.buttons.map((b) => (
            <button type="submit" class="sandbox" name="action" value={b.value}>
              {b.label}
            </button>
          ))}
        </div>
      </form>
    </div>
  );
}

/** The posted `action` of a sandbox form ('' when absent). */
export function postedAction(ctx: Ctx): string {
  const body = (ctx.request as { body?: unknown }).body;
  const v = body && typeof body === 'object' ? (body as Record<string, unknown>).action : undefined;
  const s = Array.isArray(v) ? v[0] : v;
  return typeof s === 'string' ? s : '';
}

/**
 * Runs a page's action: 303 to `back` on success; a 409 (the object moved: the action no longer
 * applies) renders the page again through `rerender` with the refusal notice, status 409. Anything
 * else propagates (a 404 is the pages' 404).
 */
export async function runAction(
  ctx: Ctx,
  back: string,
  act: () => Promise<void>,
  rerender: (refused: string, status: number) => Promise<void>,
): Promise<void> {
  try {
    await act();
  } catch (e) {
    if (!isDomainError(e) || e.type !== 'conflict') throw e;
    await rerender(pageContext(ctx).locale.copy.sandbox.refused, 409);
    return;
  }
  ctx.status = 303;
  ctx.redirect(back);
}
