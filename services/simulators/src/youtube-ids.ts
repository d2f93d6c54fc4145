// YouTube's identifiers, derived from the world's post keys so they are stable and unique: a video id
// is 11 characters of base64url (66 bits, enough for a 64-bit key), as YouTube's are; a comment thread id
// wraps the same encoding the way YouTube's `Ug…4AaABAg` ids look; a channel id is `UC` + 22 characters.

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

const encode = (value: bigint, length: number): string => {
  let out = "";
  let rest = value;
  for (let i = 0; i < length; i++) {
    out = ALPHABET[Number(rest & 63n)] + out;
    rest >>= 6n;
  }
  return out;
};

export const youtubeVideoId = (key: bigint): string => encode(key, 11);

/** The post key a video id encodes, or undefined for a string that is not one of these ids. */
export const youtubeVideoKey = (id: string): bigint | undefined => {
  if (!/^[A-Za-z0-9_-]{11}$/.test(id)) return undefined;
  let key = 0n;
  for (const c of id) key = (key << 6n) | BigInt(ALPHABET.indexOf(c));
  return key & 0xffffffffffffffffn;
};

export const youtubeCommentId = (key: bigint): string => `Ugz${encode(key, 11)}4AaABAg`;

/** A channel id for an author the post did not name a channel for. */
export const youtubeChannelIdOf = (seed: string): string => {
  let h = 0xcbf29ce484222325n;
  for (let i = 0; i < seed.length; i++) h = ((h ^ BigInt(seed.charCodeAt(i))) * 0x100000001b3n) & 0xffffffffffffffffn;
  return `UC${encode(h, 11)}${encode(h ^ 0x5bd1e9955bd1e995n, 11)}`;
};
