/** WriteAheadFile (lib/write-ahead-file.ts): rows survive until stored, segments rotate and are deleted, orphans are replayed (torn lines skipped). */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { replayOrphans, WriteAheadFile } from '../../lib/write-ahead-file';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'wal-test-'));
const files = (dir: string) => fs.readdirSync(dir).sort();

describe('WriteAheadFile', () => {
  it('keeps each row on disk until it is stored, then deletes its closed segment', () => {
    const dir = tmp();
    const w = new WriteAheadFile({ dir, rotateRows: 2 });
    const a = w.append({ n: 1 });
    const b = w.append({ n: 2 });
    const c = w.append({ n: 3 }); // second segment
    expect(files(dir)).toHaveLength(2);
    expect(fs.readFileSync(path.join(dir, files(dir)[0]), 'utf8')).toBe('{"n":1}\n{"n":2}\n');
    w.stored([a]);
    expect(files(dir)).toHaveLength(2);
    w.stored([b]);
    expect(files(dir)).toHaveLength(1); // the first segment: closed and all stored
    w.stored([c]);
    expect(files(dir)).toHaveLength(1); // the current one stays open
    w.close();
    expect(files(dir)).toHaveLength(0);
  });

  it('leaves a segment with unstored rows at close; replay hands its rows over (a torn last line skipped) and deletes it', async () => {
    const dir = tmp();
    const w = new WriteAheadFile({ dir });
    const first = w.append({ id: 'a', at: '2026-01-01T00:00:00.000Z' });
    w.append({ id: 'b', at: '2026-01-01T00:00:01.000Z' });
    w.stored([first]);
    w.close(); // as a SIGKILL would leave it: 'b' never stored
    fs.appendFileSync(path.join(dir, files(dir)[0]), '{"id":"c","at":'); // cut mid-write
    const got: Array<{ id: string; at: Date }> = [];
    const r = await replayOrphans(
      dir,
      (x) => ({ ...(x as { id: string; at: string }), at: new Date((x as { at: string }).at) }),
      async (rows) => {
        got.push(...rows);
      },
    );
    expect(r).toEqual({ rows: 2, kept: 0 });
    expect(got.map((x) => x.id)).toEqual(['a', 'b']); // 'a' comes back too: the writer ignores repeats
    expect(got[1].at).toBeInstanceOf(Date);
    expect(files(dir)).toHaveLength(0);
  });

  it('keeps a segment whose replay fails, and skips the segments of running processes', async () => {
    const dir = tmp();
    fs.writeFileSync(path.join(dir, `${process.ppid}-1-0.jsonl`), '{"id":"live"}\n'); // the parent runs
    fs.writeFileSync(path.join(dir, '999999999-1-0.jsonl'), '{"id":"dead"}\n');
    const r = await replayOrphans(
      dir,
      (x) => x,
      async () => {
        throw new Error('db down');
      },
    );
    expect(r).toEqual({ rows: 0, kept: 1 });
    expect(files(dir)).toHaveLength(2);
    const seen: unknown[] = [];
    expect(
      await replayOrphans(
        dir,
        (x) => x,
        async (rows) => {
          seen.push(...rows);
        },
      ),
    ).toEqual({ rows: 1, kept: 0 });
    expect(seen).toEqual([{ id: 'dead' }]);
    expect(files(dir)).toEqual([`${process.ppid}-1-0.jsonl`]);
  });

  it('counts an append it could not make and returns no mark', () => {
    const dir = tmp();
    const w = new WriteAheadFile({ dir });
    fs.rmSync(dir, { recursive: true });
    expect(w.append({ n: 1 })).toBeNull();
    expect(w.failures).toBe(1);
  });
});
