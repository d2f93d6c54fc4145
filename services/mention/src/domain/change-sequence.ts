import { DomainError, isUniqueViolation, isVersionConflict, type StagedEvent, type Write } from "@earshot/platform/core";
import { CHANGE_SEQUENCES, type ChangeSequenceDoc } from "../store";
import type { MentionDeps } from "./deps";

// Every write that changes a mention as the API presents it takes the next numbers of its project's change
// sequence, in the same commit (the change feed, changes.ts, reads mentions in that order). The project's
// sequence document is replaced at the version read (inserted for the first change), so two commits racing
// for the same numbers cannot both land: the loser numbers again after the winner. Hence a number is
// visible only once every lower one is, whichever replica wrote it and on either store, and a reader that
// moved past N never misses a change numbered N or below. Commits of one process queue per project
// first, so only replicas racing each other retry.

/** Tries for one commit: a round is lost only to a commit that landed, so this covers bursts from many replicas. */
const ATTEMPTS = 32;

/** Days of markers kept beyond the retention, for a clock a little behind another replica's. */
const SPARE_DAYS = 2;

export interface SequencedCommit {
  writes: Write[];
  events: StagedEvent[];
}

/** The first number of each project's share of a commit. */
export type FirstSeqs = ReadonlyMap<string, number>;

const utcDay = (at: Date) => at.toISOString().slice(0, 10);

/** The day markers after a change on `now`'s day starting after `before`: the day's marker added, those past the retention dropped. */
const markDays = (days: ChangeSequenceDoc["days"], now: Date, before: number, retentionDays: number): ChangeSequenceDoc["days"] => {
  const today = utcDay(now);
  const marked = days.at(-1)?.day === today ? days : [...days, { day: today, seq: before }];
  const keepFrom = utcDay(new Date(now.getTime() - (retentionDays + SPARE_DAYS) * 86_400_000));
  return marked.filter((d) => d.day >= keepFrom);
};

/**
 * The oldest position the change feed serves: before the first change on or after the horizon's day (the
 * changes numbered up to it were all committed on earlier days); the head when nothing changed since.
 */
export const oldestServedSeq = (sequence: ChangeSequenceDoc | null, horizon: Date): number => {
  const day = utcDay(horizon);
  return sequence?.days.find((d) => d.day >= day)?.seq ?? sequence?.seq ?? 0;
};

const ours = (err: unknown) => (isVersionConflict(err) || isUniqueViolation(err)) && err.collection === CHANGE_SEQUENCES;

/**
 * Commits writes that change mentions of the projects in `counts` (how many changes each) with their events,
 * `build` placing each project's numbers (first..first+count-1) in its mentions. `build` may run more than
 * once, so it must only assign numbers. Any other conflict (a mention changed since it was read) is thrown
 * for the verb to read again. Waiting change reads of the projects are woken once it is committed.
 */
export const commitChanges = async (deps: MentionDeps, counts: ReadonlyMap<string, number>, build: (first: FirstSeqs) => SequencedCommit): Promise<void> => {
  const projects = [...counts.keys()].filter((p) => (counts.get(p) ?? 0) > 0);
  if (projects.length === 0) {
    const { writes, events } = build(new Map());
    if (writes.length > 0 || events.length > 0) await deps.outbox.commit(writes, events);
    return;
  }
  await deps.changeQueue.runAll(projects, async () => {
    for (let attempt = 1; ; attempt++) {
      const now = deps.clock.now();
      const stored = await deps.collections.sequences.find({ _id: { $in: projects } });
      const byId = new Map(stored.map((s) => [s._id, s]));
      const first = new Map<string, number>();
      const counterWrites: Write[] = projects.map((projectId) => {
        const before = byId.get(projectId);
        const head = before?.seq ?? 0;
        first.set(projectId, head + 1);
        const doc: ChangeSequenceDoc = {
          _id: projectId,
          seq: head + (counts.get(projectId) ?? 0),
          days: markDays(before?.days ?? [], now, head, deps.changeFeed.retentionDays),
          updatedAt: now,
          _v: (before?._v ?? 0) + 1,
        };
        return before ? { kind: "replace", collection: CHANGE_SEQUENCES, doc, expectedVersion: before._v ?? 1 } : { kind: "insert", collection: CHANGE_SEQUENCES, doc };
      });
      const { writes, events } = build(first);
      try {
        await deps.outbox.commit([...counterWrites, ...writes], events);
        break;
      } catch (err) {
        if (!ours(err)) throw err;
        if (attempt >= ATTEMPTS) throw new DomainError("conflict", "Too many changes of this project at once; try again.", { cause: err });
      }
    }
  });
  for (const projectId of projects) deps.changes.notify(projectId);
};

/** One mention's change, numbered: its `changeSeq` (and `createdSeq` when it has none) set to the number. */
export const numbered = <M extends { changeSeq?: number; createdSeq?: number }>(mention: M, seq: number): M => ({
  ...mention,
  changeSeq: seq,
  createdSeq: mention.createdSeq ?? seq,
});
