/**
 * An in-memory write-behind buffer: rows are pushed synchronously (no I/O on the caller's path)
 * and written in batches by `write` every `intervalMs` or as soon as `maxBatch` rows wait, one
 * batch in flight at a time. A failed batch is put back and retried on the next tick; beyond
 * `maxBuffered` waiting rows the oldest are dropped (counted in `dropped`) so a database outage
 * cannot exhaust memory. `flush()` drains everything (shutdown, tests).
 */
export interface BatchBufferOptions<T> {
  intervalMs: number;
  maxBatch: number;
  maxBuffered: number;
  write: (rows: T[]) => Promise<void>;
  onError?: (err: unknown, rows: number) => void;
}

export class BatchBuffer<T> {
  private rows: T[] = [];
  private timer: NodeJS.Timeout | null = null;
  private inFlight: Promise<void> | null = null;
  /** Rows discarded because the buffer was full. */
  dropped = 0;

  constructor(private readonly opts: BatchBufferOptions<T>) {}

  /** Rows waiting to be written. */
  get size(): number {
    return this.rows.length;
  }

  /** Queues one row; never blocks, never throws. */
  push(row: T): void {
    if (this.rows.length >= this.opts.maxBuffered) {
      this.rows.shift();
      this.dropped += 1;
    }
    this.rows.push(row);
    if (this.rows.length >= this.opts.maxBatch && !this.inFlight) void this.writeOne();
    else this.arm();
  }

  private arm(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.writeOne().then(() => {
        if (this.rows.length) this.arm();
      });
    }, this.opts.intervalMs);
    this.timer.unref();
  }

  /** Writes one batch (waits for the batch in flight first). Failures put the rows back. */
  private async writeOne(): Promise<void> {
    while (this.inFlight) await this.inFlight.catch(() => undefined);
    if (!this.rows.length) return;
    const batch = this.rows.splice(0, this.opts.maxBatch);
    this.inFlight = (async () => {
      try {
        await this.opts.write(batch);
      } catch (e) {
        this.opts.onError?.(e, batch.length);
        const room = Math.max(0, this.opts.maxBuffered - this.rows.length);
        this.dropped += Math.max(0, batch.length - room);
        this.rows.unshift(...batch.slice(0, room));
        throw e;
      } finally {
        this.inFlight = null;
      }
    })();
    await this.inFlight.catch(() => undefined);
  }

  /** Writes every waiting row now (stops at the first failed batch, which stays queued). */
  async flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    while (this.rows.length) {
      const before = this.rows.length;
      await this.writeOne();
      if (this.rows.length >= before) break;
    }
    while (this.inFlight) await this.inFlight.catch(() => undefined);
  }
}
