/**
 * views/wire.ts is what api/wire-cli.ts generates from the document this build serves: the views
 * typed by it return what the document says. Regenerating it must give the checked-in file
 * (after a change to a response schema, run `npm run build && npm run wire:generate`).
 */
import fs from 'node:fs';
import path from 'node:path';
import { documentOfThisBuild } from '../../api/openapi-cli';
import { wireDocument, wireTypeName, wireTypes } from '../../api/wire-cli';

const doc = documentOfThisBuild();

test('views/wire.ts is the regenerated wire types of the served document', () => {
  const checkedIn = fs.readFileSync(path.join(__dirname, '..', '..', 'views', 'wire.ts'), 'utf8');
  expect(wireTypes(doc) === checkedIn).toBe(true);
}, 120_000);

test('every operation with a JSON success response has a wire type, repeated schemas as aliases', () => {
  const { doc: wire, aliases } = wireDocument(doc);
  const schemas = (wire.components as { schemas: Record<string, unknown> }).schemas;
  expect(wireTypeName('payment_sessions.payments.get')).toBe('PaymentSessionsPaymentsGet');
  expect(schemas.PaymentSessionsGet).toBeDefined();
  expect(schemas.PayrollRecipientSessionsGet).toBeDefined();
  for (const [name, first] of aliases) {
    expect(schemas[name]).toBeUndefined();
    expect(schemas[first]).toBeDefined();
  }
});
