import { isUniqueViolation, isVersionConflict } from "@earshot/platform/core";
import type { ChatFormat } from "../fields";
import type { DeliveryDoc } from "../store";
import { attemptDelivery } from "./attempt";
import { attemptChatBatch, CHAT_BATCH } from "./chat-attempt";
import { type Claimed, claimDeliveries } from "./claim";
import type { DeliveryDeps } from "./deps";

// Runs due deliveries. Each tick reads the deliveries due by the service's clock and claims those that fit
// the free slots with versioned replaces, in one commit (with their budget, see claim.ts), that move their
// due time past the claim's end: of several instances (or ticks) only one wins, and a replica that dies mid-attempt leaves a delivery that falls due again when the claim ends,
// so it is retried, never lost. Attempts run a few per endpoint at once, so a slow receiver holds only its
// own slots. A chat endpoint (Slack, Discord) is different: its due deliveries go together, several to a
// message, one request at a time, and the next waits for the provider's pace (or the wait a 429 asked
// for), so a burst of mentions is a few messages rather than a storm of 429s. Tests call `tick()` with a
// manual clock; `start()` runs ticks on real timers.

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
  /** Chat endpoints with a request in flight in this replica. */
  private readonly chatBusy = new Set<string>();
  /** Chat endpoints whose next request waits until then (ms, by the service's clock). */
  private readonly pacedUntil = new Map<string, number>();
  private readonly paceTimers = new Set<NodeJS.Timeout>();
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
    for (const t of this.paceTimers) clearTimeout(t);
    this.paceTimers.clear();
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
    for (const [id, until] of this.pacedUntil) if (until <= now.getTime()) this.pacedUntil.delete(id);
    const waiting = new Set([...this.chatBusy, ...this.pacedUntil.keys()]);
    const saturated = [...[...this.inFlight].filter(([, n]) => n >= this.perEndpoint).map(([id]) => id), ...waiting];
    const filter = { status: { $in: OPEN }, nextAttemptAt: { $lte: now }, ...(saturated.length > 0 ? { endpointId: { $nin: saturated } } : {}) };
    const due = await deps.collections.deliveries.find(filter, { sort: { nextAttemptAt: 1 }, limit: Math.min(this.batchSize, free * 2) });
    // What fits the free slots, in due order: the whole selection is claimed in one commit. A chat
    // endpoint's deliveries take one slot together, up to a message's worth.
    const chosen: DeliveryDoc[] = [];
    const taken = new Map<string, number>();
    let slots = 0;
    for (const delivery of due) {
      const mine = taken.get(delivery.endpointId) ?? 0;
      if (delivery.chat) {
        if (waiting.has(delivery.endpointId) || mine >= CHAT_BATCH || (mine === 0 && this.running.size + slots >= this.total)) continue;
        if (mine === 0) slots++;
      } else {
        if (this.running.size + slots >= this.total) continue;
        if ((this.inFlight.get(delivery.endpointId) ?? 0) + mine >= this.perEndpoint) continue;
        slots++;
      }
      taken.set(delivery.endpointId, mine + 1);
      chosen.push(delivery);
    }
    const claimed = await this.claim(deps, chosen, now);
    const chats = new Map<string, Claimed[]>();
    const started: Array<Promise<void>> = [];
    for (const c of claimed) {
      if (c.delivery.chat) chats.set(c.endpoint._id, [...(chats.get(c.endpoint._id) ?? []), c]);
      else started.push(this.run(deps, c));
    }
    for (const batch of chats.values()) started.push(this.runChat(deps, batch));
    return started;
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
    // One by one, except a chat endpoint's deliveries, which go together as they would have (they share its turn).
    const units = new Map<string, DeliveryDoc[]>();
    for (const d of deliveries) {
      const key = d.chat ? `chat:${d.endpointId}` : d._id;
      units.set(key, [...(units.get(key) ?? []), d]);
    }
    const claimed: Claimed[] = [];
    for (const unit of units.values()) {
      const current = await deps.collections.deliveries.find({ _id: { $in: unit.map((d) => d._id) } });
      const unchanged = current.filter((c) => unit.some((d) => d._id === c._id && (d._v ?? 1) === (c._v ?? 1)));
      if (unchanged.length === 0) continue;
      try {
        claimed.push(...(await claimDeliveries(deps, unchanged, now, this.claimMs)));
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

  /** One request for a chat endpoint's claimed deliveries; the endpoint's next waits for the provider's pace. */
  private runChat(deps: DeliveryDeps, batch: Claimed[]): Promise<void> {
    const { endpoint, delivery: first } = batch[0] as Claimed;
    this.chatBusy.add(endpoint._id);
    const done = attemptChatBatch(deps, first.chat as ChatFormat, batch.map((c) => c.delivery), endpoint)
      .then((attempt) => this.paceUntil(deps, endpoint._id, attempt.notBefore))
      .catch((err: unknown) => deps.logger.error({ err, endpointId: endpoint._id }, "chat delivery failed; its deliveries are retried when their claim ends"))
      .finally(() => {
        this.chatBusy.delete(endpoint._id);
        this.running.delete(done);
        if (!this.stopped) this.wake();
      });
    this.running.add(done);
    return done;
  }

  /** The endpoint waits until `notBefore`; on real timers a tick runs then, rather than at the next timer. */
  private paceUntil(deps: DeliveryDeps, endpointId: string, notBefore: Date): void {
    const waitMs = notBefore.getTime() - deps.clock.now().getTime();
    if (waitMs <= 0) return;
    this.pacedUntil.set(endpointId, notBefore.getTime());
    if (this.stopped) return;
    const timer = setTimeout(() => {
      this.paceTimers.delete(timer);
      this.wake();
    }, waitMs);
    timer.unref?.();
    this.paceTimers.add(timer);
  }
}
