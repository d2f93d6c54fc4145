// 32-bit FNV-1a, continued from a state, so a text can be hashed in parts without joining them: relevance
// hashes feature names as they are found, stories hash word pairs. fnvOn(fnvOn(FNV_OFFSET, a), b) is the
// hash of a + b; fnvPair hashes "first second".

export const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
const SPACE = 0x20;

/** The state after hashing `text` from `state` (not yet made unsigned: `>>> 0` the final one). */
export const fnvOn = (state: number, text: string): number => {
  let h = state;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), FNV_PRIME);
  return h;
};

/** The state after hashing `first`, a space and `second` from `state`. */
export const fnvPair = (state: number, first: string, second: string): number => fnvOn(Math.imul(fnvOn(state, first) ^ SPACE, FNV_PRIME), second);
