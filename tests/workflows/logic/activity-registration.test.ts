/**
 * The worker registers exactly the activities the workflows call: the keys of `activities`
 * (activities/index.ts, what worker.ts registers) equal the names called on the workflows'
 * proxies (`<proxy>.<name>(` in workflows/*.ts, where `<proxy>` is a `proxyActivities` /
 * `proxyLocalActivities` / `proxyDatabaseActivities` result). ARCHITECTURE.md "Layout": activities/<area>/activities.ts holds
 * only what workflows call.
 */
import fs from 'node:fs';
import path from 'node:path';
import { activities } from '../../../activities';

const WORKFLOWS = path.resolve(__dirname, '../../../workflows');

/** Activity names each workflow file calls on its proxies. */
function proxiedNames(): Map<string, Set<string>> {
  const byFile = new Map<string, Set<string>>();
  for (const file of fs.readdirSync(WORKFLOWS).filter((f) => f.endsWith('.ts'))) {
    const src = fs.readFileSync(path.join(WORKFLOWS, file), 'utf8');
    const proxies = [...src.matchAll(/const\s+(\w+)\s*=\s*proxy(?:Local|Database)?Activities\b/g)].map((m) => m[1]);
    const names = new Set<string>();
    for (const proxy of proxies) {
      for (const m of src.matchAll(new RegExp(`\\b${proxy}\\.(\\w+)\\s*\\(`, 'g'))) names.add(m[1]);
    }
    if (proxies.length) byFile.set(file, names);
  }
  return byFile;
}

test('the parser finds every workflow and the activities it calls', () => {
  const byFile = proxiedNames();
  expect([...byFile.keys()].sort()).toEqual([
    'conversion.ts',
    'customer.ts',
    'deposit-intent.ts',
    'offramp-intent.ts',
    'order.ts',
    'payment-link.ts',
    'payment.ts',
    'payout.ts',
    'payroll-item.ts',
    'payroll-run.ts',
    'send-intent.ts',
    'subscription.ts',
    'virtual-account.ts',
    'webhook-endpoint.ts',
    'xchain-payment.ts',
  ]);
  expect(byFile.get('offramp-intent.ts')).toEqual(new Set(['advanceOfframp', 'submitOfframpPayment', 'refundOfframp']));
  expect(byFile.get('payout.ts')).toContain('loadPayoutState');
  expect(byFile.get('webhook-endpoint.ts')).toEqual(new Set(['drainEndpoint']));
});

test('the worker registers exactly the activities the workflows proxy', () => {
  const proxied = new Set([...proxiedNames().values()].flatMap((s) => [...s]));
  const registered = new Set(Object.keys(activities));
  expect({ count: registered.size, names: [...registered].sort() }).toEqual({ count: proxied.size, names: [...proxied].sort() });
});
