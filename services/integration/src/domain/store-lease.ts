import { type Collection, type Doc, type Filter, isUniqueViolation, isVersionConflict } from "@earshot/platform/core";

// A lease on one document of the store, so that one replica at a time does a job that must not run twice
// (reading Bluesky's firehose). The holder names itself in `leaseOwner` and renews `leaseUntil` before it
// lapses; another replica takes the lease only once it has lapsed (the holder died or stopped renewing).
// Taking and renewing are versioned writes, so of two replicas racing for a free lease one wins. Writes the
// holder makes under the lease are fenced with `heldBy()`: after a takeover the old holder's writes match
// nothing, and it learns it lost the lease. Works on every store adapter (it uses only the store port).

export interface LeaseFields {
  leaseOwner?: string;
  leaseUntil?: Date;
}

export interface StoreLeaseOptions<T extends Doc & LeaseFields> {
  collection: Collection<T>;
  /** The document that carries the lease (and whatever the holder keeps with it). */
  id: string;
  /** This replica. */
  owner: string;
  /** How long a lease lasts unrenewed: a replica that died is replaced after this. */
  ttlMs: number;
  now: () => Date;
  /** The document's other fields when the lease is taken for the first time. */
  initial: () => Omit<T, "_id" | "_v" | keyof LeaseFields>;
}

export class StoreLease<T extends Doc & LeaseFields> {
  constructor(private readonly o: StoreLeaseOptions<T>) {}

  /** Takes the lease, or renews it if held; false while another replica's lease is live (or it won a race). */
  async hold(): Promise<boolean> {
    const { collection, id, owner } = this.o;
    const now = this.o.now();
    const leaseUntil = new Date(now.getTime() + this.o.ttlMs);
    const doc = await collection.findById(id);
    if (!doc) {
      try {
        await collection.insertOne({ ...this.o.initial(), _id: id, leaseOwner: owner, leaseUntil } as unknown as T);
        return true;
      } catch (err) {
        if (isUniqueViolation(err)) return false;
        throw err;
      }
    }
    const lapsed = !doc.leaseOwner || !doc.leaseUntil || doc.leaseUntil <= now;
    if (doc.leaseOwner !== owner && !lapsed) return false;
    try {
      await collection.updateVersioned(id, doc._v ?? 1, { $set: { leaseOwner: owner, leaseUntil } });
      return true;
    } catch (err) {
      if (isVersionConflict(err)) return false;
      throw err;
    }
  }

  /** Gives the lease back if this replica holds it (with `set` written in the same update). */
  async release(set: Partial<Omit<T, "_id" | "_v" | keyof LeaseFields>> = {}): Promise<void> {
    await this.o.collection.updateOne(this.heldBy(), { ...(Object.keys(set).length > 0 ? { $set: set } : {}), $unset: { leaseOwner: true, leaseUntil: true } });
  }

  /** Matches the lease's document only while this replica holds it: the filter of the holder's writes. */
  heldBy(): Filter {
    return { _id: this.o.id, leaseOwner: this.o.owner };
  }
}
