import type { DeliveryDoc } from "../store";
import { attemptDelivery } from "./attempt";
import type { DeliveryDeps } from "./deps";

// Runs due deliveries. Each tick reads the deliveries due by the service's clock and claims each one with
// a versioned update that moves its due time past the claim's end: of several replicas (or ticks) only one
// wins, and a replica that dies mid-attempt leaves a delivery that falls due again when the claim ends,
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
    this.perEndpoint = options.perEndpoint ?? 2;
    this.total = options.total ?? 32;
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
    const due = await deps.collections.deliveries.find({ status: { $in: OPEN }, nextAttemptAt: { $lte: now } }, { sort: { nextAttemptAt: 1 }, limit: this.batchSize });
    const started: Array<Promise<void>> = [];
    for (const delivery of due) {
      if (this.running.size >= this.total) break;
      if ((this.inFlight.get(delivery.endpointId) ?? 0) >= this.perEndpoint) continue;
      const claimed = await this.claim(deps, delivery, now);
      if (!claimed) continue;
      started.push(this.run(deps, claimed));
    }
    return started;
  }

  private claim(deps: DeliveryDeps, delivery: DeliveryDoc, now: Date): Promise<DeliveryDoc | null> {
    return deps.collections.deliveries.findOneAndUpdate(
      { _id: delivery._id, _v: delivery._v ?? 1 },
      { $set: { nextAttemptAt: new Date(now.getTime() + this.claimMs) } },
    );
  }

  private run(deps: DeliveryDeps, claimed: DeliveryDoc): Promise<void> {
    this.inFlight.set(claimed.endpointId, (this.inFlight.get(claimed.endpointId) ?? 0) + 1);
    const done = attemptDelivery(deps, claimed)
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
