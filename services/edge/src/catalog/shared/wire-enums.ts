import type { EnumWords } from "@earshot/platform";

// Between the API's words (owner, active, member, x…) and the enums of earshot.common.v1 on the wire.

/** The enum value of a word the input schema already accepted. */
export const wireValue = <E extends number>(words: EnumWords<E, string>, word: string): E => {
  const value = words.value(word);
  if (value === undefined) throw new Error(`"${word}" is not one of ${words.words.join(", ")}`);
  return value;
};

/** The API's word for an enum value a service sent (the presenters', in the contract layer). */
export { apiWord } from "@earshot/contracts/resources";
