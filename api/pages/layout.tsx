/**
 * The frame of every page (issue 22): language, viewport, the product's stylesheet and script with
 * this response's CSP nonce, a skip link, the SANDBOX banner where the environment simulates the
 * outside world, and one `<main>`. Preact renders it on the server; text and attributes are escaped
 * by default (no raw HTML is ever inserted).
 */
import type { ComponentChildren } from 'preact';
import { assetUrl } from './assets';
import type { Locale } from './i18n';

export interface LayoutProps {
  locale: Locale;
  nonce: string;
  title: string;
  sandbox: boolean;
  /** Live refresh: the page's state key and the URL that answers `{ state, html }` (api/pages/assets/pages.js). */
  live?: { url: string; state: string };
  children: ComponentChildren;
}

/** The whole document around `children`. */
export function Layout(p: LayoutProps) {
  const c = p.locale.copy;
  return (
    <html lang={p.locale.tag}>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <meta name="robots" content="noindex, nofollow" />
        <link rel="icon" href="data:," />
        <title>{p.title}</title>
        <link rel="stylesheet" href={assetUrl('pages.css')} nonce={p.nonce} />
        <script src={assetUrl('pages.js')} nonce={p.nonce} defer />
      </head>
      <body>
        <a class="skip" href="#main">{c.skipToContent}</a>
        {p.sandbox ? <div class="sandbox-banner" role="note"><strong>{c.sandboxTag}</strong> {c.sandboxBanner}</div> : null}
        <main id="main" tabIndex={-1} data-live-url={p.live?.url} data-state={p.live?.state}>
          {p.children}
        </main>
        <footer class="foot"><span>{c.product}</span></footer>
      </body>
    </html>
  );
}

/** One labelled field's error, tied to its input by `aria-describedby` (`<id>-error`). */
export function FieldError(p: { id: string; message: string | undefined }) {
  if (!p.message) return null;
  return <p class="field-error" id={`${p.id}-error`}>{p.message}</p>;
}

/** A value with a copy button (the button works with JavaScript; the value stays selectable without). */
export function Copyable(p: { label: string; value: string; id: string; locale: Locale; strong?: boolean }) {
  return (
    <div class={p.strong ? 'copyable strong' : 'copyable'}>
      <dt id={`${p.id}-label`}>{p.label}</dt>
      <dd>
        <code id={p.id} class="value">{p.value}</code>
        <button type="button" class="copy" data-copy={p.id} data-copied={p.locale.copy.copied} aria-describedby={`${p.id}-label`} hidden>{p.locale.copy.copy}</button>
      </dd>
    </div>
  );
}
