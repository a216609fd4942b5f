/**
 * The simulator's served document (`GET /sim/openapi.json`, api/sim-openapi.ts; issue 12): it names
 * exactly the routes the simulator router serves, every request body is the route's own joi schema
 * converted, and every route has a worked example (of its request and of its answer) that passes
 * its schema; a few examples are sent for real, as a merchant's engineer would copy them, and answer
 * the fields their documented answer shows.
 */
import { simulatorRouter } from '../../api/routes/simulator';
import { simTemplate } from '../../api/sim-openapi';
import { SIM_OPERATIONS } from '../../api/schemas/simulator';
import { SIM_RESPONSE_EXAMPLES } from '../../api/sim-response-examples';
import { call, connectDb } from '../helpers/api';

let doc: { openapi: string; paths: Record<string, Record<string, any>> };

beforeAll(async () => {
  await connectDb();
  const r = await call('GET', '/sim/openapi.json');
  expect(r.status).toBe(200);
  expect(r.headers.get('content-type')).toMatch(/^application\/json/);
  doc = r.body;
});

test('documents exactly the routes the simulator serves (the document itself aside)', () => {
  const served = simulatorRouter()
    .stack.flatMap((layer) => layer.methods.filter((m) => m !== 'HEAD').map((m) => `${m.toLowerCase()} ${layer.path}`))
    .filter((k) => k !== 'get /sim/openapi.json')
    .map((k) => k.replace(/:([A-Za-z_]+)/g, '{$1}'))
    .sort();
  const documented = Object.entries(doc.paths)
    .flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m} ${p}`))
    .sort();
  expect(documented).toEqual(served);
  expect(doc.openapi).toBe('3.1.0');
});

test('every route has a summary, a description, an answer and an example; every example body passes its schema', () => {
  for (const op of SIM_OPERATIONS) {
    const d = doc.paths[simTemplate(op.path)][op.method];
    expect([op.id, d.summary.length > 0, d.description.length > 0]).toEqual([op.id, true, true]);
    expect(d.responses[String(op.status)]).toBeDefined();
    for (const p of d.parameters.filter((x: any) => x.in === 'path'))
      expect([op.id, p.name, typeof p.example]).toEqual([op.id, p.name, 'string']);
    if (op.body) {
      expect(d.requestBody.content['application/json'].example).toEqual(op.example.body);
      const { error } = op.body.validate(op.example.body);
      expect([op.id, error?.message]).toEqual([op.id, undefined]);
    } else {
      expect(d.requestBody).toBeUndefined();
    }
  }
});

test("every route carries an example: of each input it takes (path, query, body) and of its answer, whose object is the route's (issue 38)", () => {
  for (const op of SIM_OPERATIONS) {
    const d = doc.paths[simTemplate(op.path)][op.method];
    const answer = d.responses[String(op.status)].content['application/json'].example;
    expect([op.id, answer?.object]).toEqual([op.id, op.object]);
    for (const p of d.parameters as Array<{ name: string; in: string; example?: unknown }>) {
      if (p.in === 'path' || op.query?.[p.name] !== undefined) expect([op.id, p.name, typeof p.example]).toEqual([op.id, p.name, 'string']);
    }
    if (op.body) expect([op.id, typeof d.requestBody.content['application/json'].example]).toEqual([op.id, 'object']);
  }
});

test('the documented examples work as written: a chain transfer and a screening signal', async () => {
  for (const id of ['sim.chain.transfers.create', 'sim.screening.signals.create']) {
    const op = SIM_OPERATIONS.find((o) => o.id === id)!;
    const r = await call('POST', simTemplate(op.path), op.example.body);
    expect([id, r.status, r.body.object]).toEqual([id, op.status, op.object]);
    expect([id, Object.keys(r.body).sort()]).toEqual([id, Object.keys(SIM_RESPONSE_EXAMPLES[id]).sort()]);
  }
  const emails = SIM_OPERATIONS.find((o) => o.id === 'sim.emails.list')!;
  const r = await call('GET', `${simTemplate(emails.path)}?related_object_id=${emails.example.query!.related_object_id}`);
  expect([r.status, r.body.object]).toEqual([200, 'list']);
});
