/**
 * Pins the payroll export's CSV (domain/payroll-rows.ts `payrollExportCsv`, `csvField`) byte for
 * byte: header, CRLF line ends, which fields are quoted, quote doubling, null as the empty field and
 * the formula-injection guard on the text columns (name, email, memo) only. Written against the
 * hand-kept writer before the CSV library replaced it (issue 26 item 7); the library must give the
 * same bytes. `reference*` below is that hand-kept writer, kept as the oracle of the sweep.
 */
import { csvField, PAYROLL_EXPORT_COLUMNS, payrollExportCsv, type PayrollExportItem } from '../../domain/payroll-rows';
import type { Money } from '../../domain/money';

const usd = (amount: string): Money => ({ amount, currency: 'USD', decimals: 2 });
const HEADER = 'item_id,recipient_id,recipient_name,recipient_email,amount,currency,status,destination,failure_reason,paid_at,memo\r\n';

function item(over: Partial<PayrollExportItem> = {}): PayrollExportItem {
  return {
    item_id: 'pri_1',
    recipient_id: 'prc_1',
    recipient_name: 'Ana',
    recipient_email: 'ana@example.com',
    amount: usd('150000'),
    status: 'paid',
    destination: 'ach ****6789',
    failure_reason: null,
    paid_at: '2026-11-23T10:00:00.000Z',
    memo: null,
    ...over,
  };
}

/** The writer as it was hand-kept (RFC 4180 quoting, `'` before a formula in a text field). */
function referenceField(v: string | null, raw = false): string {
  if (v === null) return '';
  let s = v;
  if (!raw && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]|^ | $/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

describe('payroll export CSV (pinned bytes)', () => {
  it('no items: the header line alone, CRLF-terminated', () => {
    expect(payrollExportCsv([])).toBe(HEADER);
    expect(PAYROLL_EXPORT_COLUMNS.join(',') + '\r\n').toBe(HEADER);
  });

  it('a plain row, nulls as empty fields, CRLF after every line including the last', () => {
    expect(
      payrollExportCsv([
        item(),
        item({ item_id: 'pri_2', destination: null, paid_at: null, status: 'failed', failure_reason: 'account_closed', memo: 'May' }),
      ]),
    ).toBe(
      HEADER +
        'pri_1,prc_1,Ana,ana@example.com,1500.00,USD,paid,ach ****6789,,2026-11-23T10:00:00.000Z,\r\n' +
        'pri_2,prc_1,Ana,ana@example.com,1500.00,USD,failed,,account_closed,,May\r\n',
    );
  });

  it('amounts in major units at the currency scale', () => {
    const jpy: Money = { amount: '500', currency: 'JPY', decimals: 0 };
    const kwd: Money = { amount: '1', currency: 'KWD', decimals: 3 };
    const usdc: Money = { amount: '10100000', currency: 'USDC', decimals: 6 };
    expect(payrollExportCsv([item({ amount: jpy }), item({ amount: kwd }), item({ amount: usdc })])).toBe(
      HEADER +
        'pri_1,prc_1,Ana,ana@example.com,500,JPY,paid,ach ****6789,,2026-11-23T10:00:00.000Z,\r\n' +
        'pri_1,prc_1,Ana,ana@example.com,0.001,KWD,paid,ach ****6789,,2026-11-23T10:00:00.000Z,\r\n' +
        'pri_1,prc_1,Ana,ana@example.com,10.100000,USDC,paid,ach ****6789,,2026-11-23T10:00:00.000Z,\r\n',
    );
  });

  it('quotes a field holding a comma, a quote, CR or LF, or starting or ending with a space; doubles inner quotes', () => {
    const cases: Array<[string, string]> = [
      ['Diaz, Ana', '"Diaz, Ana"'],
      ['say "hi"', '"say ""hi"""'],
      ['"', '""""'],
      ['two\nlines', '"two\nlines"'],
      ['two\r\nlines', '"two\r\nlines"'],
      ['cr\ronly', '"cr\ronly"'],
      [' lead', '" lead"'],
      ['trail ', '"trail "'],
      [' ', '" "'],
      ['in side', 'in side'],
      ['tab\tinside', 'tab\tinside'],
      ['semi;colon', 'semi;colon'],
      ["it's", "it's"],
      ['Zoë Ünal 名前', 'Zoë Ünal 名前'],
      ['\uFEFFbom', '\uFEFFbom'],
      ['\u00A0nbsp', '\u00A0nbsp'],
      ['', ''],
    ];
    for (const [input, field] of cases) {
      expect(payrollExportCsv([item({ memo: input })])).toBe(
        `${HEADER}pri_1,prc_1,Ana,ana@example.com,1500.00,USD,paid,ach ****6789,,2026-11-23T10:00:00.000Z,${field}\r\n`,
      );
      expect(csvField(input)).toBe(field);
    }
  });

  it("puts ' before a text field starting with = + - @ TAB or CR (then quotes as usual); never before our own fields", () => {
    const cases: Array<[string, string]> = [
      ['=1+1', "'=1+1"],
      ['+1', "'+1"],
      ['-1', "'-1"],
      ['@SUM(A1)', "'@SUM(A1)"],
      ['\tx', "'\tx"],
      ['\rx', `"'\rx"`],
      ['=HYPERLINK("x")', `"'=HYPERLINK(""x"")"`],
      ['=a,b', `"'=a,b"`],
      ['x=1', 'x=1'],
      [' =1', '" =1"'],
      ['\uFF1D1', '\uFF1D1'], // fullwidth '=': not guarded today
    ];
    for (const [input, field] of cases) {
      expect(payrollExportCsv([item({ recipient_name: input, recipient_email: input, memo: input })])).toBe(
        `${HEADER}pri_1,prc_1,${field},${field},1500.00,USD,paid,ach ****6789,,2026-11-23T10:00:00.000Z,${field}\r\n`,
      );
      expect(csvField(input)).toBe(field);
    }
    // Our own fields are written raw (a negative amount, a reason, a destination keep their first character).
    expect(
      payrollExportCsv([
        item({
          amount: usd('-5'),
          failure_reason: '-x',
          destination: '=y',
          status: '+z',
          item_id: '@i',
          recipient_id: '-r',
          paid_at: '=p',
        }),
      ]),
    ).toBe(`${HEADER}@i,-r,Ana,ana@example.com,-0.05,USD,+z,=y,-x,=p,\r\n`);
    expect(csvField('-5', true)).toBe('-5');
    expect(csvField('=a,b', true)).toBe('"=a,b"');
    expect(csvField(null)).toBe('');
    expect(csvField(null, true)).toBe('');
  });

  it('equals the hand-kept writer on a sweep of strings built from the characters that matter', () => {
    const alphabet = ['a', 'Z', '1', ' ', ',', '"', '\r', '\n', '\t', '=', '+', '-', '@', "'", ';', 'é', '\uFEFF', '\uFF1D'];
    let seed = 26;
    const next = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed;
    };
    const word = () => Array.from({ length: next() % 7 }, () => alphabet[next() % alphabet.length]).join('');
    const items: PayrollExportItem[] = [];
    for (let i = 0; i < 2000; i += 1) {
      const maybe = () => (next() % 5 === 0 ? null : word());
      items.push(
        item({
          item_id: word(),
          recipient_id: word(),
          recipient_name: word(),
          recipient_email: word(),
          status: word(),
          destination: maybe(),
          failure_reason: maybe(),
          paid_at: maybe(),
          memo: maybe(),
        }),
      );
    }
    const expected = [PAYROLL_EXPORT_COLUMNS.join(',')];
    for (const it of items) {
      expected.push(
        [
          referenceField(it.item_id, true),
          referenceField(it.recipient_id, true),
          referenceField(it.recipient_name),
          referenceField(it.recipient_email),
          '1500.00',
          'USD',
          referenceField(it.status, true),
          referenceField(it.destination, true),
          referenceField(it.failure_reason, true),
          referenceField(it.paid_at, true),
          referenceField(it.memo),
        ].join(','),
      );
    }
    expect(payrollExportCsv(items)).toBe(expected.join('\r\n') + '\r\n');
    for (const it of items) {
      for (const raw of [false, true]) expect(csvField(it.recipient_name, raw)).toBe(referenceField(it.recipient_name, raw));
    }
  });
});
