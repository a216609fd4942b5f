/** SSE framing (domain/sse.ts, spec 6 stream). */
import { commentFrame, eventFrame, retryFrame } from '../../domain/sse';

test('event, comment and retry frames', () => {
  expect(eventFrame('evt_1', 'payment.paid', '{"a":1}')).toBe('id: evt_1\nevent: payment.paid\ndata: {"a":1}\n\n');
  expect(eventFrame('evt_1', 'x', 'l1\nl2')).toBe('id: evt_1\nevent: x\ndata: l1\ndata: l2\n\n');
  expect(eventFrame('evt\n1', 'x\ry', '{}')).toBe('id: evt 1\nevent: x y\ndata: {}\n\n');
  expect(commentFrame('heartbeat 2026')).toBe(': heartbeat 2026\n\n');
  expect(retryFrame(1500.7)).toBe('retry: 1500\n\n');
});
