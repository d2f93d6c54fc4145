import { isUniqueViolation, isVersionConflict } from "@earshot/platform/core";
import type { DeliveryDoc } from "../store";
import { attemptDelivery } from "./attempt";
import { type Claimed, claimDeliveries } from "./claim";
import type { DeliveryDeps } from "./deps";

// Runs due deliveries. Each tick reads the deliveries due by the service's clock and claims those that fit
// the free slots with versioned replaces, in one commit (with their budget, see claim.ts), that move their
// due time past the claim's end: of several instances (or ticks) only one wins, and a replica that dies mid-attempt leaves a delivery that falls due again when the claim ends,
// so it is retried, never lost. Attempts run a few per endpoint at once, so a slow receiver holds only its
// own slots. Tests call `tick()` with a manual clock; `start()` runs ticks on real timers.

const OPEN = ["pending", "retrying", "held"];

export interface WorkerOptions {
  /** How long a claim lasts: past the send timeout, so a live attempt is never taken over. */
  claimMs?: number;
  /** Attempts at once per endpoint in this replica. */
  perEndpoint?: number;
  /** Attempts at once in this replica. */
  total?: number;
  /** Longest wait between ticks on real timers (a new delivery wakes the loop sooner). */
  maxTickDelayMs?: number;
  batchSize?: number;
}

export class DeliveryWorker {
  private readonly claimMs: number;
  private readonly perEndpoint: number;
  private readonly total: number;
  private readonly maxTickDelayMs: number;
  private readonly batchSize: number;
  private readonly inFlight = new Map<string, number>();
  private readonly running = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<unknown> | undefined;
  private again = false;
  private stopped = true;

  constructor(
    private readonly deps: () => DeliveryDeps,
    options: WorkerOptions = {},
  ) {
    this.claimMs = options.claimMs ?? 60_000;
    this.perEndpoint = options.perEndpoint ?? 8;
    this.total = options.total ?? 64;
    this.maxTickDelayMs = options.maxTickDelayMs ?? 1_000;
    this.batchSize = options.batchSize ?? 100;
  }

  /** Claims what is due and starts it; resolves when those attempts are done. */
  async tick(): Promise<number> {
    const started = await this.launchDue();
    await Promise.all(started);
    return started.length;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  /** A delivery became due: run a tick soon instead of at the next timer. */
  wake(): void {
    if (this.stopped) return;
    if (this.ticking) this.again = true;
    else this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.ticking;
    await Promise.all([...this.running]);
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.ticking = this.launchDue()
        .catch((err: unknown) => this.deps().logger.error({ err }, "delivery tick failed"))
        .finally(() => {
          this.ticking = undefined;
          const soon = this.again;
          this.again = false;
          this.schedule(soon ? 0 : this.maxTickDelayMs);
        });
    }, delayMs);
    this.timer.unref?.();
  }

  private async launchDue(): Promise<Array<Promise<void>>> {
    const deps = this.deps();
    const now = deps.clock.now();
    const free = this.total - this.running.size;
    if (free <= 0) return [];
    // Read only what may start: not the endpoints whose slots are all taken, and about as many as the free
    // slots (a tick runs again as soon as one frees), not a whole backlog parsed to start one or two.
    const saturated = [...this.inFlight].filter(([, n]) => n >= this.perEndpoint).map(([id]) => id);
    const filter = { status: { $in: OPEN }, nextAttemptAt: { $lte: now }, ...(saturated.length > 0 ? { endpointId: { $nin: saturated } } : {}) };
    const due = await deps.collections.deliveries.find(filter, { sort: { nextAttemptAt: 1 }, limit: Math.min(this.batchSize, free * 2) });
    // What fits the free slots, in due order: the whole selection is claimed in one commit.
    const chosen: DeliveryDoc[] = [];
    const taken = new Map<string, number>();
    for (const delivery of due) {
      if (this.running.size + chosen.length >= this.total) break;
      const busy = (this.inFlight.get(delivery.endpointId) ?? 0) + (taken.get(delivery.endpointId) ?? 0);
      if (busy >= this.perEndpoint) continue;
      taken.set(delivery.endpointId, (taken.get(delivery.endpointId) ?? 0) + 1);
      chosen.push(delivery);
    }
    const claimed = await this.claim(deps, chosen, now);
    return claimed.map((d) => this.run(deps, d));
  }

  /**
   * Claims the deliveries at the versions read, in one commit with what the claim decides for each: a
   * delivery whose endpoint is gone is deleted, one whose endpoint is inactive fails, one of a deactivated
   * workspace waits, and one not yet counted spends the workspace's daily budget (or is held to the next
   * UTC day when it is spent). When another instance claimed one of them first, or spent the same budget,
   * the commit does nothing and each is claimed on its own (the ones taken are skipped).
   */
  private async claim(deps: DeliveryDeps, deliveries: DeliveryDoc[], now: Date): Promise<Claimed[]> {
    if (deliveries.length === 0) return [];
    if (deliveries.length > 1) {
      try {
        return await claimDeliveries(deps, deliveries, now, this.claimMs);
      } catch (err) {
        if (!isVersionConflict(err) && !isUniqueViolation(err)) throw err;
      }
    }
    const claimed: Claimed[] = [];
    for (const d of deliveries) {
      const current = await deps.collections.deliveries.findById(d._id);
      if (!current || (current._v ?? 1) !== (d._v ?? 1)) continue;
      try {
        claimed.push(...(await claimDeliveries(deps, [current], now, this.claimMs)));
      } catch (err) {
        if (!isVersionConflict(err) && !isUniqueViolation(err)) throw err;
      }
    }
    return claimed;
  }

  private run(deps: DeliveryDeps, { delivery: claimed, endpoint }: Claimed): Promise<void> {
    this.inFlight.set(claimed.endpointId, (this.inFlight.get(claimed.endpointId) ?? 0) + 1);
    const done = attemptDelivery(deps, claimed, endpoint)
      .catch((err: unknown) => deps.logger.error({ err, deliveryId: claimed._id }, "delivery attempt failed; it is retried when its claim ends"))
      .finally(() => {
        const left = (this.inFlight.get(claimed.endpointId) ?? 1) - 1;
        if (left <= 0) this.inFlight.delete(claimed.endpointId);
        else this.inFlight.set(claimed.endpointId, left);
        this.running.delete(done);
        // A slot freed: what waited for it may go now.
        if (!this.stopped) this.wake();
      });
    this.running.add(done);
    return done;
  }
}
