/**
 * The contract checks itself (issue 3 section 3): every operation of the served document
 * (`GET /v1/openapi.json`) whose path template has a path parameter gets real ids from
 * `realIdsFor(...)` (tests/helpers/contract.ts), so the fuzzer (tests/contract/fuzz.test.ts) and
 * the authorization matrix (tests/api/authz-matrix.test.ts) reach past the 404 into its handler.
 * A new area whose objects `createAccountObjects` does not create fails here, not silently in a
 * fuzzing run that only ever sees 404s. Exceptions are listed, with the reason, in NO_REAL_IDS.
 *
 * Also checked: every per-operation entry of the fixtures names an operation of the document (no
 * stale override), and every read with real ids answers something other than 404 (the ids are
 * real, visible to the caller the fuzzer uses).
 */
import { call, connectDb, newAccount } from '../helpers/api';
import { createAccountObjects, realIdsFor, templateParams, type AccountObjects } from '../helpers/contract';
import { Receiver } from '../helpers/receiver';

/**
 * `'<METHOD> <template>'` of operations allowed to have no real ids, each with why. Empty today:
 * every path parameter of every operation has an object. Add an entry only for an id that cannot
 * exist for the fuzzed account (e.g. an object no API call of a business key or session creates),
 * never for "not written yet".
 */
const NO_REAL_IDS: Record<string, string> = {};

type Op = { operationId: string; 'x-callers'?: string[] };
let doc: { paths: Record<string, Record<string, Op>> };
let objects: AccountObjects;
let acct: Awaited<ReturnType<typeof newAccount>>;
const receiver = new Receiver();

const HTTP_METHODS = new Set(['get', 'post', 'put', 'patch', 'delete']);

/** Every operation of the document: `[label, template, method, operation]`. */
function operations(): Array<[string, string, string, Op]> {
  return Object.entries(doc.paths).flatMap(([template, ops]) =>
    Object.entries(ops)
      .filter(([method]) => HTTP_METHODS.has(method))
      .map(([method, op]) => [`${method.toUpperCase()} ${template}`, template, method, op] as [string, string, string, Op]),
  );
}

beforeAll(async () => {
  await connectDb();
  acct = await newAccount();
  await receiver.start();
  const r = await call('GET', '/v1/openapi.json');
  if (r.status !== 200) throw new Error(`openapi document: ${r.status}`);
  doc = r.body;
  const started = Date.now();
  objects = await createAccountObjects(acct, receiver);
  process.stderr.write(`createAccountObjects: ${Date.now() - started} ms\n`);
});

afterAll(async () => {
  await receiver.stop();
});

test('every operation with a path parameter gets real ids for each of them (or is allow-listed with a reason)', () => {
  const missing: string[] = [];
  const withIds: string[] = [];
  for (const [label, template, method] of operations()) {
    const params = templateParams(template);
    if (!params.length) continue;
    const ids = realIdsFor(template, objects, method);
    const lacking = params.filter((p) => !ids[p]?.length);
    if (lacking.length && !(label in NO_REAL_IDS)) missing.push(`${label} (no ids for ${lacking.join(', ')})`);
    if (!lacking.length) withIds.push(label);
  }
  expect(missing).toEqual([]);
  // An allow-listed operation that has real ids now must leave the list.
  expect(Object.keys(NO_REAL_IDS).filter((label) => withIds.includes(label))).toEqual([]);
  expect(withIds.length).toBeGreaterThan(40);
});

test('every allow-list and per-operation fixture entry names an operation of the served document', () => {
  const labels = new Set(operations().map(([label]) => label));
  expect([...Object.keys(NO_REAL_IDS), ...Object.keys(objects.byOperation)].filter((l) => !labels.has(l))).toEqual([]);
});

test('the ids are real: every read addressed with them answers something other than 404', async () => {
  const reads = operations().filter(([, template, method]) => method === 'get' && templateParams(template).length);
  const notFound: string[] = [];
  for (const [label, template, method, op] of reads) {
    if (template === '/events/stream') continue;
    const ids = realIdsFor(template, objects, method);
    if (templateParams(template).some((p) => !ids[p]?.length)) continue; // reported by the first test
    let path = template;
    for (const p of templateParams(template)) path = path.replace(`{${p}}`, encodeURIComponent(ids[p][0]));
    // Public (token) operations carry no x-callers and take no credential.
    const callers = op['x-callers'];
    const cred = !callers ? {} : callers.includes('business_key') ? { key: acct.live_key } : { bearer: acct.session_token };
    const r = await call('GET', `/v1${path}`, undefined, cred);
    if (r.status === 404) notFound.push(`${label} as ${path}: ${JSON.stringify(r.body).slice(0, 200)}`);
  }
  expect(notFound).toEqual([]);
});
