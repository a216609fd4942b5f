/** BatchBuffer (lib/batch-buffer.ts): batches by size and by time, retries failed batches, bounds memory, flushes. */
import { BatchBuffer } from '../../lib/batch-buffer';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('BatchBuffer', () => {
  it('writes a full batch at once and the remainder after the interval', async () => {
    const batches: number[][] = [];
    const b = new BatchBuffer<number>({
      intervalMs: 50,
      maxBatch: 3,
      maxBuffered: 100,
      write: async (r) => {
        batches.push(r);
      },
    });
    for (let i = 1; i <= 4; i++) b.push(i);
    await sleep(5);
    expect(batches).toEqual([[1, 2, 3]]);
    await sleep(80);
    expect(batches).toEqual([[1, 2, 3], [4]]);
    expect(b.size).toBe(0);
  });

  it('keeps a failed batch and writes it on a later tick, in order', async () => {
    const batches: number[][] = [];
    let fail = true;
    const errors: number[] = [];
    const b = new BatchBuffer<number>({
      intervalMs: 20,
      maxBatch: 10,
      maxBuffered: 100,
      onError: (_e, n) => errors.push(n),
      write: async (r) => {
        if (fail) {
          fail = false;
          throw new Error('db down');
        }
        batches.push(r);
      },
    });
    b.push(1);
    b.push(2);
    await sleep(30);
    b.push(3);
    await sleep(60);
    expect(errors).toEqual([2]);
    expect(batches.flat()).toEqual([1, 2, 3]);
  });

  it('drops the oldest rows beyond maxBuffered and flush() drains the rest', async () => {
    const written: number[] = [];
    const b = new BatchBuffer<number>({
      intervalMs: 10_000,
      maxBatch: 1000,
      maxBuffered: 3,
      write: async (r) => {
        written.push(...r);
      },
    });
    for (let i = 1; i <= 5; i++) b.push(i);
    expect(b.dropped).toBe(2);
    await b.flush();
    expect(written).toEqual([3, 4, 5]);
    expect(b.size).toBe(0);
  });
});
