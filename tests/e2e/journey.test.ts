/**
 * The first money journey end to end (issue "platform core"): runs `npm run demo` (dist/scripts/demo.js)
 * against the running product with a freshly provisioned merchant: link created and activated, paid
 * short then topped up on the native rail through /sim/chain/transfers, paid and settled into the
 * service wallet, events listed, every webhook delivered and its signature verified; then the
 * bank-rail journey (a SEPA link paid short by bank, topped up, settled to the merchant's IBAN).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { newAccount } from '../helpers/api';

test('npm run demo passes against the running product', async () => {
  const creds = await newAccount();
  const file = path.join(os.tmpdir(), `demo-creds-${creds.account_id}.json`);
  fs.writeFileSync(file, JSON.stringify(creds));
  const r = spawnSync(process.execPath, [path.resolve(__dirname, '../../dist/scripts/demo.js')], {
    env: { ...process.env, DEMO_API_URL: process.env.TEST_API_URL, DEMO_CREDENTIALS: file },
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (r.status !== 0) throw new Error(`demo failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  expect(r.stdout).toContain('Demo passed.');
  expect(r.stdout).toContain('payment settled, verdict exact, received 101000000');
  // The bank-rail journey (issue 12): SEPA paid short, topped up, settled to the merchant's IBAN.
  expect(r.stdout).toMatch(/payment underpaid \(received 15000 EUR cents, verdict underpaid\)/);
  expect(r.stdout).toMatch(/sepa payout E2E[0-9A-F]+ of 25000 EUR cents to IBAN \.\.\.2606; payment settled, link settled/);
});
