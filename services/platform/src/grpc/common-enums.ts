import { commonV1 } from "@earshot/proto";
import type { Source as SourceWord } from "../core/sources";

// The shared enums of earshot.common.v1 and the words the JSON API and the domain use for them. Both
// directions live here so that every service and the edge translate the same way.

export interface EnumWords<E extends number, W extends string> {
  /** The word of a value; undefined for UNSPECIFIED and values this build does not know. */
  word(value: E): W | undefined;
  /** The value of a word; undefined for an unknown word. */
  value(word: string): E | undefined;
  readonly words: readonly W[];
}

/**
 * The domain's word of an enum value a caller sent: "" for UNSPECIFIED (not given), and for a value this
 * build does not know a word no rule accepts (`unknown(7)`), so the field check refuses it by name.
 */
export const enumWordOf = <E extends number>(words: EnumWords<E, string>, value: E): string => (value === 0 ? "" : (words.word(value) ?? `unknown(${value})`));

/** The enum value of a domain word (one the domain produced, so known); UNSPECIFIED otherwise. */
export const enumValueOf = <E extends number>(words: EnumWords<E, string>, word: string): E => words.value(word) ?? (0 as E);

/** A two-way table between a proto enum and its words, for a service's own enums too. */
export const enumWords = <E extends number, W extends string>(pairs: ReadonlyArray<readonly [E, W]>): EnumWords<E, W> => {
  const byValue = new Map<number, W>(pairs.map(([v, w]) => [v, w]));
  const byWord = new Map<string, E>(pairs.map(([v, w]) => [w, v]));
  return { word: (v) => byValue.get(v), value: (w) => byWord.get(w), words: pairs.map(([, w]) => w) };
};

export const ROLE_WORDS: EnumWords<commonV1.Role, "owner" | "editor" | "viewer"> = enumWords([
  [commonV1.Role.ROLE_OWNER, "owner"],
  [commonV1.Role.ROLE_EDITOR, "editor"],
  [commonV1.Role.ROLE_VIEWER, "viewer"],
] as const);

export const PROJECT_STATUS_WORDS: EnumWords<commonV1.ProjectStatus, "active" | "paused" | "archived"> = enumWords([
  [commonV1.ProjectStatus.PROJECT_STATUS_ACTIVE, "active"],
  [commonV1.ProjectStatus.PROJECT_STATUS_PAUSED, "paused"],
  [commonV1.ProjectStatus.PROJECT_STATUS_ARCHIVED, "archived"],
] as const);

export const MEMBER_TYPE_WORDS: EnumWords<commonV1.MemberType, "member" | "invite"> = enumWords([
  [commonV1.MemberType.MEMBER_TYPE_MEMBER, "member"],
  [commonV1.MemberType.MEMBER_TYPE_INVITE, "invite"],
] as const);

export const SOURCE_WORDS: EnumWords<commonV1.Source, SourceWord> = enumWords([
  [commonV1.Source.SOURCE_X, "x"],
  [commonV1.Source.SOURCE_REDDIT, "reddit"],
  [commonV1.Source.SOURCE_YOUTUBE, "youtube"],
  [commonV1.Source.SOURCE_LINKEDIN, "linkedin"],
  [commonV1.Source.SOURCE_HACKERNEWS, "hackernews"],
  [commonV1.Source.SOURCE_BLUESKY, "bluesky"],
  [commonV1.Source.SOURCE_RSS, "rss"],
  [commonV1.Source.SOURCE_GITHUB, "github"],
] as const);
