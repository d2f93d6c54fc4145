import type { SentimentLabel } from "../fields";
import { foldWord } from "./words";

// A small lexicon scorer, marked `method: "lexicon"` wherever it shows: fast, deterministic and honest
// about being a word count, not a model. Each word of the lexicon (English, plus common words of Spanish,
// French and German) weighs -3..+3; a negation ("not", "never", "pas", "nicht", "no", …) flips the next
// word of the lexicon within three words; the sum is squashed into [-1, 1] (sum / √(sum² + 15), as VADER
// does), and scores within ±0.05 of zero are neutral.

export interface SentimentScore {
  label: SentimentLabel;
  score: number;
  method: "lexicon";
}

const WEIGHTS: Record<string, number> = {};
const add = (weight: number, words: string) => {
  for (const w of words.split(/\s+/)) if (w) WEIGHTS[foldWord(w)] = weight;
};

add(3, "love loved loves amazing awesome excellent fantastic outstanding superb perfect brilliant wonderful incroyable génial genial genialen excelente increíble fantástico wunderbar hervorragend ausgezeichnet super 😍 ❤️ ❤");
add(2, "great good nice happy glad impressed impressive beautiful enjoy enjoyed recommend recommended helpful fast reliable smooth solid best better thanks thank fun cool bueno buena buenos gracias feliz bon bonne bien merci heureux gut gute guten danke toll schön 👍 😀 😃 😊 🎉 🙌");
add(1, "like liked likes ok okay fine fair decent useful easy works worked fixed clean gusta aime");
add(-1, "slow meh bug bugs issue issues problem problems confusing expensive late lento lent langsam teuer cher caro");
add(-2, "bad poor annoying annoyed disappointed disappointing broken crash crashes crashed fail fails failed failure worse wrong angry frustrating frustrated useless hate hated unhappy sad malo mala mauvais mauvaise schlecht kaputt 👎 😞 😠 😢");
add(-3, "terrible awful horrible worst scam fraud disgusting pathetic garbage trash furious unacceptable nul nulle pésimo pésima schrecklich furchtbar 😡 🤬");

const NEGATIONS = new Set(
  "not no never none nobody nothing neither nor cannot cant dont doesnt didnt isnt wasnt arent werent wont wouldnt shouldnt couldnt hardly without pas jamais rien nunca jamás tampoco ni nicht kein keine keinen nie niemals"
    .split(" ")
    .map(foldWord),
);

/** Words looked at after a negation for the word it flips. */
const NEGATION_REACH = 3;
const NEUTRAL_BAND = 0.05;
const SQUASH = 15;

// Words, apostrophes kept inside them ("don't", "n'est"), and the pictographs the lexicon knows.
const TOKEN = /[\p{L}\p{N}\p{M}]+(?:['’][\p{L}\p{N}\p{M}]+)*|\p{Extended_Pictographic}\uFE0F?/gu;

const isNegation = (token: string): boolean => NEGATIONS.has(token.replace(/['’]/g, "")) || /n['’]t$/.test(token);

const weightOf = (token: string): number | undefined => {
  const direct = WEIGHTS[token];
  if (direct !== undefined) return direct;
  // French elisions: "l'excellent", "n'est".
  const elided = /^[a-z]['’](.+)$/.exec(token);
  return elided ? WEIGHTS[elided[1] as string] : undefined;
};

export const scoreSentiment = (...texts: Array<string | undefined>): SentimentScore => {
  let sum = 0;
  for (const text of texts) {
    if (!text) continue;
    // A negation's reach ends with its text: a title does not negate the body.
    let negateWithin = 0;
    for (const [raw] of text.matchAll(TOKEN)) {
      const token = foldWord(raw);
      const weight = weightOf(token);
      if (weight !== undefined) {
        sum += negateWithin > 0 ? -weight : weight;
        negateWithin = 0;
      } else if (isNegation(token)) negateWithin = NEGATION_REACH;
      else if (negateWithin > 0) negateWithin -= 1;
    }
  }
  const score = sum === 0 ? 0 : Math.round((sum / Math.sqrt(sum * sum + SQUASH)) * 1000) / 1000;
  const label: SentimentLabel = score >= NEUTRAL_BAND ? "positive" : score <= -NEUTRAL_BAND ? "negative" : "neutral";
  return { label, score, method: "lexicon" };
};
