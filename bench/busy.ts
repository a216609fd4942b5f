/**
 * What a throwaway stack (scripts/stack.ts) is busy with during a benchmark (issue 27 items 5-6):
 * CPU per process group (API, worker, Temporal dev server, the PostgreSQL backends and background
 * processes of the stack's database, the bench process itself) as % of one core, and as ms
 * (`cpuMsByGroup`, for CPU per unit of work); PostgreSQL sessions active and what they wait on
 * (pg_stat_activity), and the worker's task-queue backlog (Temporal DescribeTaskQueue stats).
 * Linux only (/proc). Used by bench/load.ts and bench/webhooks.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Connection } from '@temporalio/client';
import { db } from '../lib/db';

/** CPU time (user + system) of process `pid` so far, ms; null when it is gone. */
function cpuMs(pid: number): number | null {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime in clock ticks (USER_HZ 100)
  } catch {
    return null;
  }
}

/**
 * The stack's processes, found among this process's children: API (`api/main.js`), API and worker
 * in one (`api/serve.js`), worker (`worker.js`), Temporal (the dev server `temporal`, or a cluster's
 * `temporal-server` processes, whose PostgreSQL backends the sampler adds).
 */
function productPids(): Map<string, number[]> {
  const out = new Map<string, number[]>([
    ['API', []],
    ['API+worker', []],
    ['worker', []],
    ['Temporal', []],
  ]);
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const ppid = Number(fs.readFileSync(`/proc/${d}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
      if (ppid !== process.pid) continue;
      const cmd = fs.readFileSync(`/proc/${d}/cmdline`, 'utf8');
      const kind = cmd.includes(`api${path.sep}main.js`)
        ? 'API'
        : cmd.includes(`api${path.sep}serve.js`)
          ? 'API+worker'
          : cmd.includes('worker.js')
            ? 'worker'
            : cmd.includes('temporal')
              ? 'Temporal'
              : null;
      if (kind) out.get(kind)!.push(Number(d));
    } catch {
      /* gone */
    }
  }
  return out;
}

/**
 * Samples, once a second while running, what the stack is busy with: CPU per process group (the
 * PostgreSQL backends of this database and its background processes, from pg_stat_activity),
 * sessions active and waiting, and the task-queue backlog.
 */
export class Sampler {
  private cpu = new Map<string, number>();
  private last = new Map<number, number>();
  private samples = 0;
  private active = 0;
  private waiting = new Map<string, number>();
  private backlog = { workflow: 0, activity: 0, known: true };
  private timer: NodeJS.Timeout | null = null;
  private t0 = 0;
  private busy = false;
  private stopped = false;
  /** The process groups of the last sample, for the final CPU reading at `stop`. */
  private groups = new Map<string, number[]>();

  /** `temporal` null: no backlog figures. */
  constructor(
    private readonly temporal: Connection | null,
    private readonly taskQueue: string,
  ) {}

  /** Starts sampling (once now, then every second). */
  start(): void {
    this.t0 = performance.now();
    void this.tick();
    this.timer = setInterval(() => void this.tick(), 1000);
  }

  private async tick(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      const groups = productPids();
      const pg: Array<{ pid: number; state: string | null; wait: string | null; mine: boolean }> = await db().query(
        `SELECT pid, state, wait_event_type AS wait, pid = pg_backend_pid() AS mine FROM pg_stat_activity WHERE datname IS NULL OR datname = current_database()`,
      );
      groups.set(
        'PostgreSQL',
        pg.map((r) => r.pid),
      );
      // On a Temporal cluster (scripts/stack.ts), the backends of its persistence and visibility
      // databases are Temporal's work, as the dev server's SQLite is inside its process.
      const temporalPg: Array<{ pid: number }> = await db().query(
        `SELECT pid FROM pg_stat_activity WHERE datname LIKE current_database() || '_temporal%'`,
      );
      groups.get('Temporal')!.push(...temporalPg.map((r) => r.pid));
      groups.set('bench', [process.pid]);
      if (this.stopped) return;
      this.groups = groups;
      this.addCpu();
      this.samples += 1;
      for (const r of pg) {
        if (r.mine || r.state !== 'active') continue;
        this.active += 1;
        if (r.wait) this.waiting.set(r.wait, (this.waiting.get(r.wait) ?? 0) + 1);
      }
      if (this.temporal && this.backlog.known) {
        try {
          for (const [kind, type] of [
            ['workflow', 1],
            ['activity', 2],
          ] as const) {
            const res = await this.temporal.workflowService.describeTaskQueue({
              namespace: 'default',
              taskQueue: { name: this.taskQueue, kind: 1 },
              taskQueueType: type,
              reportStats: true,
            });
            this.backlog[kind] = Math.max(this.backlog[kind], Number(res.stats?.approximateBacklogCount ?? 0));
          }
        } catch {
          this.backlog.known = false;
        }
      }
    } catch {
      /* a missed sample */
    } finally {
      this.busy = false;
    }
  }

  /** Adds each process's CPU since its previous reading to its group (the first reading only sets the base). */
  private addCpu(): void {
    for (const [g, pids] of this.groups) {
      for (const pid of pids) {
        const now = cpuMs(pid);
        if (now === null) continue;
        const before = this.last.get(pid);
        this.last.set(pid, now);
        if (before !== undefined) this.cpu.set(g, (this.cpu.get(g) ?? 0) + now - before);
      }
    }
  }

  /** Stops sampling (a last CPU reading of the processes last seen); returns the report lines. */
  stop(): string[] {
    if (this.timer) clearInterval(this.timer);
    this.stopped = true;
    this.addCpu();
    const wall = performance.now() - this.t0;
    const cpu = [...this.cpu].map(([g, ms]) => `${g} ${((100 * ms) / wall).toFixed(0)}%`).join(', ');
    const per = (n: number) => (n / Math.max(1, this.samples)).toFixed(1);
    const waits = [...this.waiting].map(([w, n]) => `${w} ${per(n)}`).join(', ') || 'none';
    return [
      `  CPU (% of one core)          ${cpu}`,
      `  PostgreSQL sessions active   ${per(this.active)} on average (waiting: ${waits})`,
      `  task-queue backlog (max)     ${this.backlog.known ? `workflow ${this.backlog.workflow}, activity ${this.backlog.activity}` : 'not reported by this server'}`,
    ];
  }

  /**
   * CPU ms per process group (`API`, `API+worker`, `worker`, `Temporal`, `PostgreSQL`, `bench`)
   * from the first sample to `stop` (call it after `stop`); a group none of whose processes was
   * seen twice is absent.
   */
  cpuMsByGroup(): Map<string, number> {
    return new Map(this.cpu);
  }
}
