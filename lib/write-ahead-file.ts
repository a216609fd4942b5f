/**
 * A local write-ahead file for rows that are written to PostgreSQL later, in batches
 * (docs/decisions/0079-pipeline-work-done-once.md). `append` writes one JSON line with a
 * synchronous `write(2)` before it returns: once it has returned, the row is in the kernel's page
 * cache and survives the process being killed (SIGKILL, a crash, an OOM kill); it does not survive
 * the host losing power (no fsync; the rows are request logs, not money). The caller reports rows
 * stored (`stored`); a segment whose every row is stored is deleted. `replayOrphans` (at start)
 * hands the rows of segments left by processes that are no longer running to a writer, then deletes
 * them: rows already stored come back too, so the writer must ignore repeats.
 *
 * Segments: `<dir>/<pid>-<started ms>-<n>.jsonl`, a new one every `rotateRows` rows. Only this
 * process appends to its own segments; several processes may share `dir`.
 */
import fs from 'node:fs';
import path from 'node:path';

/** A segment being written or waiting for its rows to be stored. */
interface Segment {
  file: string;
  fd: number | null;
  appended: number;
  stored: number;
}

/** Where a row was appended (pass it back to `stored`). */
export type WalMark = Segment;

export interface WriteAheadFileOptions {
  dir: string;
  /** Rows per segment before a new one starts. */
  rotateRows?: number;
}

export class WriteAheadFile {
  private readonly dir: string;
  private readonly rotateRows: number;
  private readonly prefix = `${process.pid}-${Date.now()}-`;
  private n = 0;
  private current: Segment | null = null;
  /** Append failures (disk full, directory removed): the row is then only in memory. */
  failures = 0;

  constructor(opts: WriteAheadFileOptions) {
    this.dir = opts.dir;
    this.rotateRows = opts.rotateRows ?? 10_000;
    fs.mkdirSync(this.dir, { recursive: true });
  }

  /** Appends `row` as one JSON line, synchronously; returns its segment, or null when the write failed (counted in `failures`). */
  append(row: unknown): WalMark | null {
    try {
      if (!this.current || this.current.appended >= this.rotateRows) this.rotate();
      const seg = this.current!;
      fs.writeSync(seg.fd!, `${JSON.stringify(row)}\n`);
      seg.appended += 1;
      return seg;
    } catch {
      this.failures += 1;
      return null;
    }
  }

  /** Records that the rows appended at `marks` are stored; deletes every closed segment whose rows all are. */
  stored(marks: Array<WalMark | null>): void {
    const touched = new Set<Segment>();
    for (const m of marks) {
      if (!m) continue;
      m.stored += 1;
      touched.add(m);
    }
    for (const seg of touched) if (seg !== this.current) this.dropIfDone(seg);
  }

  /** Closes the current segment (shutdown); deletes it when every row is stored, else leaves it for the next start's replay. */
  close(): void {
    const seg = this.current;
    this.current = null;
    if (seg) this.dropIfDone(seg);
  }

  private rotate(): void {
    const old = this.current;
    const file = path.join(this.dir, `${this.prefix}${this.n++}.jsonl`);
    this.current = { file, fd: fs.openSync(file, 'a'), appended: 0, stored: 0 };
    if (old) this.dropIfDone(old);
  }

  private dropIfDone(seg: Segment): void {
    if (seg.fd !== null) {
      fs.closeSync(seg.fd);
      seg.fd = null;
    }
    if (seg.stored >= seg.appended) fs.rmSync(seg.file, { force: true });
  }
}

/** True while process `pid` runs (a signal 0 probe; EPERM means it runs under another user). */
function alive(pid: number): boolean {
  if (pid === process.pid) return false; // this process has not appended yet when it replays: the file is from a former process with the same pid
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Replays the segments in `dir` left by processes no longer running: parses each line (a torn last
 * line, cut by the kill mid-write, is skipped), passes the rows to `write` in chunks of `chunk`,
 * then deletes the segment. A segment whose write fails stays for the next start. Returns the
 * rows replayed and the segments kept.
 */
export async function replayOrphans<T>(
  dir: string,
  revive: (line: unknown) => T,
  write: (rows: T[]) => Promise<void>,
  chunk = 1000,
): Promise<{ rows: number; kept: number }> {
  let names: string[];
  try {
    names = fs.readdirSync(dir).filter((f) => /^\d+-\d+-\d+\.jsonl$/.test(f));
  } catch {
    return { rows: 0, kept: 0 };
  }
  let rows = 0;
  let kept = 0;
  for (const name of names.sort()) {
    if (alive(Number(name.split('-')[0]))) continue;
    const file = path.join(dir, name);
    const parsed: T[] = [];
    for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
      if (!line) continue;
      try {
        parsed.push(revive(JSON.parse(line)));
      } catch {
        /* a line cut short by the kill */
      }
    }
    try {
      for (let i = 0; i < parsed.length; i += chunk) await write(parsed.slice(i, i + chunk));
      fs.rmSync(file, { force: true });
      rows += parsed.length;
    } catch {
      kept += 1;
    }
  }
  return { rows, kept };
}
