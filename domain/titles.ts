/**
 * Payment link title defaults (spec 2.3 create defaults, 8 "Derived link title").
 *
 * Pure: no I/O. Safe to import from Temporal workflows.
 */

/** Longest derived title in Unicode code points, ellipsis included (spec 8). */
export const DERIVED_TITLE_MAX_CHARS = 200;

/** The ellipsis appended to a truncated derived title (one code point, U+2026). */
export const TITLE_ELLIPSIS = '\u2026';

/** Input of `deriveTitle`: the create-request fields that can supply a title (items may carry their product's name). */
export interface TitleInput {
  title?: string | null;
  invoiceNumber?: string | null;
  items?: Array<{ name?: string | null; productName?: string | null }> | null;
}

const clean = (s: string | null | undefined): string | null => {
  if (typeof s !== 'string') return null;
  const t = s.trim();
  return t.length > 0 ? t : null;
};

/** Length of `s` in Unicode code points (not UTF-16 units). */
export function codePointLength(text: string): number {
  return Array.from(text).length;
}

/**
 * Truncate to at most `max` code points: when longer, keep the first `max - 1` code points,
 * trim trailing whitespace, and append `…` (so the result is at most `max` code points).
 * Never splits a surrogate pair.
 */
export function truncateWithEllipsis(text: string, max = DERIVED_TITLE_MAX_CHARS): string {
  const cps = Array.from(text);
  if (cps.length <= max) return text;
  return (
    cps
      .slice(0, max - 1)
      .join('')
      .trimEnd() + TITLE_ELLIPSIS
  );
}

/**
 * The title of a new payment link (spec 2.3):
 * 1. a non-blank `title`, trimmed (never truncated; its length is the schema's concern);
 * 2. else `Invoice <invoiceNumber>` (invoice number trimmed) when non-blank;
 * 3. else the first item's `name`, or that item's `productName`, trimmed; when the first item
 *    has neither, the first later item that has one is used. With N further items (N = item
 *    count - 1) ` +N more` is appended, e.g. "Design work +2 more";
 * 4. else null (the API answers `400 invalid_request` naming `title`).
 * A derived title (2, 3) over 200 code points becomes 199 code points (trailing spaces
 * trimmed) plus `…`.
 */
export function deriveTitle(input: TitleInput): string | null {
  const explicit = clean(input.title);
  if (explicit !== null) return explicit;

  const invoice = clean(input.invoiceNumber);
  if (invoice !== null) return truncateWithEllipsis(`Invoice ${invoice}`);

  const items = Array.isArray(input.items) ? input.items : [];
  for (const item of items) {
    const label = clean(item?.name) ?? clean(item?.productName);
    if (label === null) continue;
    const more = items.length - 1;
    return truncateWithEllipsis(more > 0 ? `${label} +${more} more` : label);
  }
  return null;
}
