import { codePointLength, deriveTitle, DERIVED_TITLE_MAX_CHARS, truncateWithEllipsis } from '../../domain/titles';

describe('deriveTitle (spec 2.3 create defaults)', () => {
  it('an explicit non-blank title wins, trimmed, never truncated', () => {
    expect(deriveTitle({ title: '  Website redesign ', invoiceNumber: 'INV-1' })).toBe('Website redesign');
    const long = 'x'.repeat(300);
    expect(deriveTitle({ title: long })).toBe(long);
  });

  it('a blank title counts as absent', () => {
    expect(deriveTitle({ title: '   ', invoiceNumber: 'INV-7' })).toBe('Invoice INV-7');
    expect(deriveTitle({ title: '', invoiceNumber: ' 42 ' })).toBe('Invoice 42');
    expect(deriveTitle({ title: null, invoiceNumber: 'A' })).toBe('Invoice A');
  });

  it('falls back to the first item name, with +N more', () => {
    expect(deriveTitle({ items: [{ name: 'Logo design' }] })).toBe('Logo design');
    expect(deriveTitle({ items: [{ name: 'Logo design' }, { name: 'Hosting' }] })).toBe('Logo design +1 more');
    expect(deriveTitle({ items: [{ name: ' Logo ' }, { name: 'b' }, { name: 'c' }] })).toBe('Logo +2 more');
  });

  it("uses the first item's product name when it has no name", () => {
    expect(deriveTitle({ items: [{ name: '  ', productName: 'Consulting hour' }, {}] })).toBe('Consulting hour +1 more');
    expect(deriveTitle({ items: [{ name: 'Own', productName: 'Product' }] })).toBe('Own');
  });

  it('skips leading items without any name; N still counts every other item', () => {
    expect(deriveTitle({ items: [{}, { name: 'Second' }, { name: 'Third' }] })).toBe('Second +2 more');
  });

  it('invoice number beats items', () => {
    expect(deriveTitle({ invoiceNumber: 'INV-9', items: [{ name: 'x' }] })).toBe('Invoice INV-9');
  });

  it('null when nothing supplies a title', () => {
    expect(deriveTitle({})).toBeNull();
    expect(deriveTitle({ title: ' ', invoiceNumber: '  ', items: [] })).toBeNull();
    expect(deriveTitle({ items: [{ name: null, productName: null }, { name: ' ' }] })).toBeNull();
    expect(deriveTitle({ items: null })).toBeNull();
  });

  it('truncates a derived title over 200 code points to 199 + ellipsis', () => {
    const t = deriveTitle({ items: [{ name: 'n'.repeat(250) }] }) as string;
    expect(codePointLength(t)).toBe(DERIVED_TITLE_MAX_CHARS);
    expect(t.endsWith('\u2026')).toBe(true);
    expect(t.slice(0, 199)).toBe('n'.repeat(199));

    const exact = 'm'.repeat(200);
    expect(deriveTitle({ items: [{ name: exact }] })).toBe(exact);

    const inv = deriveTitle({ invoiceNumber: '9'.repeat(300) }) as string;
    expect(codePointLength(inv)).toBe(200);
    expect(inv.startsWith('Invoice 999')).toBe(true);
  });

  it('the +N more suffix counts toward the limit (whole title is cut, then trailing space trimmed)', () => {
    // "a"x195 + " +1 more" = 203 code points -> first 199 = "a"x195 + " +1 " -> trimmed -> + ellipsis
    const t = deriveTitle({ items: [{ name: 'a'.repeat(195) }, { name: 'b' }] }) as string;
    expect(t).toBe('a'.repeat(195) + ' +1\u2026');
    expect(codePointLength(t)).toBe(199);
    const u = deriveTitle({ items: [{ name: 'a'.repeat(196) }, { name: 'b' }] }) as string;
    expect(u).toBe('a'.repeat(196) + ' +1\u2026');
    expect(codePointLength(u)).toBe(200);
  });

  it('counts code points, not UTF-16 units, and never splits a surrogate pair', () => {
    const emoji = '\u{1F680}'; // 2 UTF-16 units, 1 code point
    const name = emoji.repeat(200);
    expect(name.length).toBe(400);
    expect(deriveTitle({ items: [{ name }] })).toBe(name); // exactly 200 code points: unchanged

    const t = deriveTitle({ items: [{ name: emoji.repeat(201) }] }) as string;
    expect(codePointLength(t)).toBe(200);
    expect(t).toBe(emoji.repeat(199) + '\u2026');
    expect(t).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });

  it('trims trailing spaces before the ellipsis', () => {
    expect(truncateWithEllipsis('abcd   efgh', 8)).toBe('abcd\u2026');
    expect(truncateWithEllipsis('short', 8)).toBe('short');
  });
});
