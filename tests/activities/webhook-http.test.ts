/**
 * Tier B: the HTTP leg of a webhook attempt (activities/webhook-http.ts postWebhook) run inside
 * MockActivityEnvironment, against a local receiver (no database, no stack): what it sent and
 * what it returns for 2xx, 5xx and 3xx answers. Runs with `npm run test:logic`.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { MockActivityEnvironment } from '@temporalio/testing';
import { Agent } from 'undici';
import { postWebhook, type HttpResult } from '../../activities/webhooks/http';

let server: http.Server;
let base = '';
const received: Array<{ headers: http.IncomingHttpHeaders; body: string }> = [];
const agent = new Agent();

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      if (req.url === '/ok') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('thanks');
      } else if (req.url === '/moved') {
        res.writeHead(302, { location: 'https://elsewhere.example/hook' });
        res.end();
      } else {
        res.writeHead(500);
        res.end('x'.repeat(2000));
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await agent.close();
  await new Promise((r) => server.close(r));
});

const post = (p: string): Promise<HttpResult> =>
  new MockActivityEnvironment().run(
    postWebhook,
    new URL(base + p),
    { 'content-type': 'application/json', 'webhook-id': 'evt_1' },
    '{"id":"evt_1"}',
    agent,
  );

test('a 2xx: sent once with the headers and body; ok with the excerpt and latency', async () => {
  received.length = 0;
  const r = await post('/ok');
  expect(r).toMatchObject({ statusCode: 200, error: null, excerpt: 'thanks' });
  expect(r.latencyMs).toBeGreaterThanOrEqual(0);
  expect(received).toHaveLength(1);
  expect(received[0].headers['webhook-id']).toBe('evt_1');
  expect(received[0].body).toBe('{"id":"evt_1"}');
});

test('a 5xx is a retryable failure with the excerpt cut to 500 characters', async () => {
  const r = await post('/boom');
  expect(r).toMatchObject({ statusCode: 500, error: 'http_status_500', retryable: true });
  expect(r.excerpt).toHaveLength(500);
});

test('a redirect is not followed', async () => {
  received.length = 0;
  const r = await post('/moved');
  expect(r.statusCode).toBe(302);
  expect(r.error).toMatch(/^redirect_not_followed/);
  expect(received).toHaveLength(1);
});
