/**
 * The frame of every page: language, viewport, the product's stylesheet and script with
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
export function Layout(props: LayoutProps) {
  const c = props.locale.copy;
  return (
    <html lang={props.locale.tag}>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <meta name="robots" content="noindex, nofollow" />
        <link rel="icon" href="data:," />
        <title>{props.title}</title>
        <link rel="stylesheet" href={assetUrl('pages.css')} nonce={props.nonce} />
        <script src={assetUrl('pages.js')} nonce={props.nonce} defer />
      </head>
      <body>
        <a class="skip" href="#main">
          {c.skipToContent}
        </a>
        {props.sandbox ? (
          <div class="sandbox-banner" role="note">
            <strong>{c.sandboxTag}</strong> {c.sandboxBanner}
          </div>
        ) : null}
        <main id="main" tabIndex={-1} data-live-url={props.live?.url} data-state={props.live?.state}>
          {props.children}
        </main>
        <footer class="foot">
          <span>{c.product}</span>
        </footer>
      </body>
    </html>
  );
}

/** One labelled field's error, tied to its input by `aria-describedby` (`<id>-error`). */
export function FieldError(props: { id: string; message: string | undefined }) {
  if (!props.message) return null;
  return (
    <p class="field-error" id={`${props.id}-error`}>
      {props.message}
    </p>
  );
}

/**
 * The groups a long identifier is shown in, so that on a phone it wraps only between groups, never
 * inside one: a `0x` hex string ("0x5290 8400 … 9EE7") and a run of 13 or more letters
 * and digits (an IBAN, a CLABE) in groups of four, `spaced` apart; a URI or an email after each of
 * its separators (`:/?&=@.-`), long hex or alphanumeric pieces in fours, not spaced. A value with
 * spaces (it wraps there) or of 12 characters or fewer is one group.
 */
export function identGroups(value: string): { groups: string[]; spaced: boolean } {
  const fours = (s: string) => s.match(/.{1,4}/g) ?? [s];
  const hexOrRun = (s: string) =>
    /^0x[0-9a-fA-F]{5,}$/.test(s) ? [s.slice(0, 6), ...fours(s.slice(6))] : /^[A-Za-z0-9]{13,}$/.test(s) ? fours(s) : [s];
  if (value.length <= 12 || /\s/.test(value)) return { groups: [value], spaced: false };
  if (/^(0x[0-9a-fA-F]+|[A-Za-z0-9]+)$/.test(value)) return { groups: hexOrRun(value), spaced: true };
  const pieces = value.match(/[^:/?&=@.-]*[:/?&=@.-]*/g)?.filter(Boolean) ?? [value];
  return {
    groups: pieces.flatMap((piece) => {
      const [, body, seps] = /^(.*?)([:/?&=@.-]*)$/.exec(piece)!;
      const parts = hexOrRun(body);
      parts[parts.length - 1] += seps;
      return parts;
    }),
    spaced: false,
  };
}

/**
 * A long identifier (address, IBAN, transaction hash, URI) in `<code>`, drawn in the groups of
 * `identGroups` with a line break allowed only between them; its text is the value as is (a copy
 * or a selection has no added space). `attrs` go on the `<code>` (e.g. a `data-` marker).
 */
export function Ident(props: { value: string; id?: string; class?: string; attrs?: Record<string, string> }) {
  const { groups, spaced } = identGroups(props.value);
  const cls = ['ident', spaced ? 'spaced' : '', props.class ?? ''].filter(Boolean).join(' ');
  return (
    <code id={props.id} class={cls} {...props.attrs}>
      {groups.length === 1
        ? props.value
        : groups.map((g, i) => (
            <>
              {i > 0 ? <wbr /> : null}
              <span class="grp">{g}</span>
            </>
          ))}
    </code>
  );
}

/** A value with a copy button (the button works with JavaScript and is hidden without; the value stays selectable). */
export function Copyable(props: { label: string; value: string; id: string; locale: Locale; strong?: boolean }) {
  return (
    <div class={props.strong ? 'copyable strong' : 'copyable'}>
      <dt id={`${props.id}-label`}>{props.label}</dt>
      <dd>
        <Ident id={props.id} class="value" value={props.value} />
        <button
          type="button"
          class="copy"
          data-copy={props.id}
          data-copied={props.locale.copy.copied}
          aria-describedby={`${props.id}-label`}
          data-js-only
          hidden
        >
          {props.locale.copy.copy}
        </button>
      </dd>
    </div>
  );
}
