/**
 * Locale of a page: the payer's `Accept-Language` picks the number, currency
 * and date formatting (any locale `Intl` supports) and the copy (a translation per file in
 * api/pages/copy/, English when none matches). Amounts are formatted from bigint minor units through
 * their exact decimal string (`formatMajor`): `Intl.NumberFormat` formats a numeric string exactly,
 * never through a float.
 */
import type Koa from 'koa';
import { formatMajor, isFiat, type Money } from '../../domain/money';
import { en, type Copy } from './copy/en';

const TRANSLATIONS: Readonly<Record<string, Copy>> = { en };
const FALLBACK = 'en-US';
const NBSP = '\u00a0';

/** What a template needs to speak the payer's language. */
export interface Locale {
  /** BCP 47 tag used for formatting (e.g. `de-DE`). */
  tag: string;
  copy: Copy;
  /**
   * Money from minor units: `{12345, USD, 2}` -> "$123.45" (en-US), "123,45 $" (fr-FR); stablecoins as
   * "123.45 USDC". Every space in it is a no-break space: an amount never wraps away from its currency.
   */
  money(m: Money): string;
  /** Date and time in the payer's locale, with the time zone named (UTC: the server cannot know the payer's zone). */
  dateTime(iso: string): string;
  /** Date only (a pay period's `YYYY-MM-DD`). */
  date(isoDate: string): string;
}

/** The first language of `Accept-Language` that `Intl` formats (Koa's `acceptsLanguages`, q-ordered); else en-US. */
export function negotiateTag(ctx: Koa.Context): string {
  const wanted = ctx.acceptsLanguages() as string[];
  for (const raw of wanted) {
    if (raw === '*') break;
    try {
      const [tag] = Intl.getCanonicalLocales(raw);
      if (tag && Intl.NumberFormat.supportedLocalesOf([tag]).length > 0) return tag;
    } catch {
      /* not a BCP 47 tag: try the next */
    }
  }
  return FALLBACK;
}

/** A Locale for `tag` (see `negotiateTag`). */
export function localeFor(tag: string): Locale {
  const language = tag.split('-')[0].toLowerCase();
  const copy = TRANSLATIONS[language] ?? en;
  const dateTime = new Intl.DateTimeFormat(tag, {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZone: 'UTC',
    timeZoneName: 'short',
  });
  const dateOnly = new Intl.DateTimeFormat(tag, { dateStyle: 'medium', timeZone: 'UTC' });
  return {
    tag,
    copy,
    money(m: Money): string {
      // Intl formats a decimal string exactly (ECMA-402 "Intl.NumberFormat v3"); the cast is only for the ES2022 lib types.
      const exact = formatMajor(m) as unknown as number;
      const text = isFiat(m.currency)
        ? new Intl.NumberFormat(tag, {
            style: 'currency',
            currency: m.currency,
            minimumFractionDigits: m.decimals,
            maximumFractionDigits: m.decimals,
          }).format(exact)
        : `${new Intl.NumberFormat(tag, { minimumFractionDigits: Math.min(m.decimals, 2), maximumFractionDigits: m.decimals }).format(exact)} ${m.currency}`;
      return text.replace(/ /g, NBSP);
    },
    dateTime: (iso) => dateTime.format(new Date(iso)),
    date: (isoDate) => dateOnly.format(new Date(`${isoDate.slice(0, 10)}T00:00:00Z`)),
  };
}

/** The Locale of the request's `Accept-Language`. */
export function localeOf(ctx: Koa.Context): Locale {
  return localeFor(negotiateTag(ctx));
}
