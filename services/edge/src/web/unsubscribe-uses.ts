import type { Clock, Collection, Doc, DocumentStore } from "@earshot/platform";
import { isUniqueViolation } from "@earshot/platform";

// Which one-click unsubscribe links were used, by their token's nonce, in the edge's store so every gateway
// replica agrees: a link turns its alert off once. Claiming is an insert under the nonce (the store's unique
// _id decides between two clicks at once); the record lives as long as the token could, then the TTL index
// removes it.

export const UNSUBSCRIBE_USES_COLLECTION = "unsubscribe_uses";

export interface UnsubscribeUse extends Doc {
  alertId: string;
  usedAt: Date;
  /** When the alert was turned off (absent while that is under way). */
  offAt?: Date;
  /** Set when the page's "turn it back on" ran: the link then turns nothing off again. */
  undoneAt?: Date;
  /** The token's expiry: the TTL index removes the record then. */
  expiresAt: Date;
}

export class UnsubscribeUses {
  private readonly uses: Collection<UnsubscribeUse>;

  constructor(
    store: DocumentStore,
    private readonly clock: Clock,
  ) {
    this.uses = store.collection<UnsubscribeUse>(UNSUBSCRIBE_USES_COLLECTION);
  }

  async ensureIndexes(): Promise<void> {
    await this.uses.ensureIndex({ fields: { expiresAt: 1 }, expireAfterSeconds: 0 });
  }

  find(nonce: string): Promise<UnsubscribeUse | null> {
    return this.uses.findById(nonce);
  }

  /** The link's use, taken now; or the earlier use when the link was used already. */
  async claim(nonce: string, alertId: string, expiresAt: Date): Promise<{ claimed: true } | { claimed: false; use: UnsubscribeUse }> {
    try {
      await this.uses.insertOne({ _id: nonce, alertId, usedAt: this.clock.now(), expiresAt });
      return { claimed: true };
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      const use = await this.uses.findById(nonce);
      if (!use) throw err;
      return { claimed: false, use };
    }
  }

  /** Notes that the claimed use turned the alert off. */
  async turnedOff(nonce: string): Promise<void> {
    await this.uses.updateOne({ _id: nonce }, { $set: { offAt: this.clock.now() } });
  }

  /** Gives a claim back when turning the alert off failed, so the link still works. */
  async release(nonce: string): Promise<void> {
    await this.uses.deleteOne({ _id: nonce, undoneAt: { $exists: false } });
  }

  /** Marks the use undone; false when it was undone already (or never used). */
  async undo(nonce: string): Promise<boolean> {
    const r = await this.uses.updateOne({ _id: nonce, undoneAt: { $exists: false } }, { $set: { undoneAt: this.clock.now() } });
    return r.matchedCount === 1;
  }

  /** Takes an undo back when turning the alert on again failed. */
  async redo(nonce: string): Promise<void> {
    await this.uses.updateOne({ _id: nonce }, { $unset: { undoneAt: "" } });
  }
}
