import type { FirstSearchDoc, PollerDoc } from "../store";
import type { IntegrationDeps } from "./deps";
import { dueFirstSearches, nextFirstSearchAt } from "./first-search";
import { claimPoller, intervalMs, leaseIsLive, PollTimedOut, type PollResult, runPoll } from "./poll";
import { reconcileProject } from "./pollers";

// Polls each enabled (project, source) every interval, one replica at a time. Each tick claims the due
// pollers whose lease is free (or past its time) and runs them a few at a time; once an interval it also
// reconciles every known project, so a missed event is repaired within one interval. Ticks are driven by
// the service's clock: tests call `tick()` with a manual clock, `start()` runs them on real timers.
// A tick also runs the first searches of new or changed keywords that are due (first-search.ts), each
// under its poller's lease like a poll; a poller due for its regular poll polls first, and its first
// searches run at the next tick.

export interface SchedulerOptions {
  /** Polls running at once in this replica. */
  concurrency?: number;
  /** Due pollers looked at per tick. */
  batchSize?: number;
  /** Longest wait between ticks on real timers (a project change wakes the loop sooner). */
  maxTickDelayMs?: number;
  /** A poll still running after this long (real time) is aborted, well inside its lease. */
  pollTimeoutMs?: number;
}

/** One run: a poller's regular poll, or its keywords' first searches. */
interface Job {
  poller: PollerDoc;
  firstSearch?: FirstSearchDoc[];
}

interface InFlight {
  projectId: string;
  controller: AbortController;
  done: Promise<PollResult>;
}

export class Scheduler {
  private readonly concurrency: number;
  private readonly batchSize: number;
  private readonly maxTickDelayMs: number;
  private readonly pollTimeoutMs: number;
  private readonly inFlight = new Map<string, InFlight>();
  private readonly pending = new Set<Promise<unknown>>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private lastFullReconcile: number | undefined;
  private stopped = true;
  /** Set by stop(): a tick under way claims nothing more. */
  private halting = false;

  constructor(
    private readonly deps: IntegrationDeps,
    options: SchedulerOptions = {},
  ) {
    this.concurrency = options.concurrency ?? 4;
    this.batchSize = options.batchSize ?? 100;
    this.maxTickDelayMs = options.maxTickDelayMs ?? 5_000;
    this.pollTimeoutMs = options.pollTimeoutMs ?? 5 * 60 * 1000;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.halting = false;
    // Polls scheduled under a longer interval (the setting was lowered since) come in to this one first.
    void this.alignToInterval()
      .catch((err: unknown) => this.deps.logger.warn({ err }, "could not bring the scheduled polls in to the poll interval"))
      .finally(() => this.schedule(0));
  }

  /**
   * Brings in every poll scheduled later than one interval from now (EARSHOT_POLL_INTERVAL_SECONDS was
   * lowered since it was scheduled) to one interval from now, or to the end of its source's back-off when
   * that is later: a changed interval applies to the polls already scheduled, not only to the next ones.
   * Returns how many it moved.
   */
  async alignToInterval(): Promise<number> {
    const now = this.deps.clock.now().getTime();
    const latest = new Date(now + intervalMs(this.deps));
    const late = await this.deps.collections.pollers.find({ enabled: true, nextPollAt: { $gt: latest } });
    let moved = 0;
    for (const poller of late) {
      const to = poller.backoffUntil && poller.backoffUntil > latest ? poller.backoffUntil : latest;
      if (to.getTime() >= poller.nextPollAt.getTime()) continue;
      // Only as it was read: a poll that ran meanwhile scheduled itself under the current interval.
      const updated = await this.deps.collections.pollers.updateOne({ _id: poller._id, nextPollAt: poller.nextPollAt }, { $set: { nextPollAt: to } });
      moved += updated.modifiedCount;
    }
    return moved;
  }

  /** A project's replicas changed: reconcile its pollers now and abort its polls no longer enabled. */
  projectChanged(projectId: string): Promise<void> {
    const work = this.reconcileAndAbort(projectId).catch((err: unknown) => this.deps.logger.warn({ err, projectId }, "could not reconcile a project's pollers"));
    this.track(work);
    if (!this.stopped) void work.then(() => this.schedule(0));
    return work;
  }

  /** Claims and runs what is due now (and the interval's full reconcile when due); resolves when done. */
  async tick(): Promise<void> {
    const now = this.deps.clock.now().getTime();
    if (this.lastFullReconcile === undefined || now - this.lastFullReconcile >= intervalMs(this.deps)) {
      this.lastFullReconcile = now;
      await this.reconcileAll();
    }
    const due = await this.duePollers();
    const polled = new Set(due.map((p) => p._id));
    const searches = await dueFirstSearches(this.deps, this.batchSize, (p) => polled.has(p._id) || this.inFlight.has(p._id) || leaseIsLive(p, this.deps.clock.now()));
    const jobs: Job[] = [...due.map((poller) => ({ poller })), ...searches.map(({ poller, requests }) => ({ poller, firstSearch: requests }))];
    let next = 0;
    const worker = async () => {
      while (next < jobs.length && !this.halting) {
        const job = jobs[next++]!;
        await this.runOne(job);
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.concurrency, jobs.length) }, worker));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.halting = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    for (const f of this.inFlight.values()) f.controller.abort();
    await this.running;
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  private track(p: Promise<unknown>): void {
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p));
  }

  private async duePollers(): Promise<PollerDoc[]> {
    const now = this.deps.clock.now();
    // Leases held elsewhere are left out by the query, so a batch of them cannot starve the free ones.
    const due = await this.deps.collections.pollers.find(
      { enabled: true, nextPollAt: { $lte: now }, $or: [{ leaseUntil: { $exists: false } }, { leaseUntil: { $lte: now } }] },
      { sort: { nextPollAt: 1 }, limit: this.batchSize },
    );
    return due.filter((p) => !leaseIsLive(p, now) && !this.inFlight.has(p._id));
  }

  private async runOne({ poller, firstSearch }: Job): Promise<void> {
    let claimed: PollerDoc | null;
    try {
      claimed = await claimPoller(this.deps, poller);
    } catch (err) {
      this.deps.logger.warn({ err, pollerId: poller._id }, "could not claim a poller");
      return;
    }
    if (!claimed) return; // another replica took it
    const controller = new AbortController();
    const timeout = setTimeout(() => controller.abort(new PollTimedOut(this.pollTimeoutMs)), this.pollTimeoutMs);
    timeout.unref();
    const done = runPoll(this.deps, claimed, controller.signal, { firstSearch })
      .catch((err: unknown): PollResult => {
        // runPoll records provider failures itself; this is the store failing under it.
        this.deps.logger.warn({ err, pollerId: poller._id }, "poll could not be recorded");
        return { postsFound: 0, committed: false, error: err };
      })
      .finally(() => {
        clearTimeout(timeout);
        this.inFlight.delete(poller._id);
      });
    this.inFlight.set(poller._id, { projectId: poller.projectId, controller, done });
    this.track(done);
    await done;
  }

  private async reconcileAll(): Promise<void> {
    const [projects, enabled] = await Promise.all([
      this.deps.collections.projects.find({ status: { $ne: "archived" } }),
      this.deps.collections.pollers.find({ enabled: true }),
    ]);
    const ids = new Set([...projects.map((p) => p._id), ...enabled.map((p) => p.projectId)]);
    for (const projectId of ids) {
      try {
        await reconcileProject(this.deps, projectId);
      } catch (err) {
        this.deps.logger.warn({ err, projectId }, "could not reconcile a project's pollers");
      }
    }
  }

  private async reconcileAndAbort(projectId: string): Promise<void> {
    await reconcileProject(this.deps, projectId);
    for (const [id, f] of this.inFlight) {
      if (f.projectId !== projectId) continue;
      const poller = await this.deps.collections.pollers.findById(id);
      if (!poller?.enabled) f.controller.abort();
    }
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      // One tick at a time: a wake-up during a tick runs once it ends.
      if (this.running) return void this.running.then(() => this.schedule(0));
      this.running = this.loopTick().finally(() => {
        this.running = undefined;
      });
    }, ms);
    this.timer.unref();
  }

  private async loopTick(): Promise<void> {
    try {
      await this.tick();
    } catch (err) {
      this.deps.logger.warn({ err }, "scheduler tick failed; will try again");
    }
    if (!this.stopped) this.schedule(await this.untilNextDue());
  }

  private async untilNextDue(): Promise<number> {
    try {
      const [[next], search] = await Promise.all([this.deps.collections.pollers.find({ enabled: true }, { sort: { nextPollAt: 1 }, limit: 1 }), nextFirstSearchAt(this.deps)]);
      const soonest = Math.min(next?.nextPollAt.getTime() ?? Infinity, search?.getTime() ?? Infinity);
      const wait = Number.isFinite(soonest) ? soonest - this.deps.clock.now().getTime() : this.maxTickDelayMs;
      return Math.min(this.maxTickDelayMs, Math.max(50, wait));
    } catch {
      return this.maxTickDelayMs;
    }
  }
}
