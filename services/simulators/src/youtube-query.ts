// The `q` of search.list as YouTube reads it: quoted phrases and words, `|` between alternatives (OR),
// `-` before a word or phrase to exclude it. Words side by side in one alternative must all appear on
// YouTube; the world's search knows phrases, so they are kept together as one phrase (a narrower match,
// never a wider one).

export interface YoutubeQuery {
  anyOf: string[];
  noneOf: string[];
}

const TOKEN = /\s*(\||-?"[^"]*"|-?[^\s|"]+)/gy;

export const parseYoutubeQuery = (q: string): YoutubeQuery => {
  const anyOf: string[] = [];
  const noneOf: string[] = [];
  let current: string[] = [];
  const close = () => {
    if (current.length) anyOf.push(current.join(" "));
    current = [];
  };
  TOKEN.lastIndex = 0;
  for (let m = TOKEN.exec(q); m; m = TOKEN.exec(q)) {
    const token = m[1] ?? "";
    if (token === "|") {
      close();
      continue;
    }
    const negative = token.startsWith("-") && token.length > 1;
    const bare = negative ? token.slice(1) : token;
    const phrase = (bare.startsWith('"') ? bare.slice(1, -1) : bare).trim();
    if (!phrase) continue;
    if (negative) noneOf.push(phrase);
    else current.push(phrase);
  }
  close();
  return { anyOf, noneOf };
};
