import { linksOf, normalizeUrl, SIMILARITY_THRESHOLD, signatureOf, signatureWordsOf, similarityOf, storySignalsOf } from "./story-signals";

describe("normalizing a link", () => {
  it.each([
    ["https://www.example.com/news/launch/", "example.com/news/launch"],
    ["http://example.com/news/launch", "example.com/news/launch"],
    ["https://EXAMPLE.com/news/launch#comments", "example.com/news/launch"],
    ["https://m.example.com/news/launch?utm_source=twitter&utm_medium=social", "example.com/news/launch"],
    ["https://example.com/news/launch?fbclid=abc&gclid=def&ref=hn&s=20", "example.com/news/launch"],
    ["https://example.com:443/news/launch", "example.com/news/launch"],
    ["https://example.com/item?id=42&utm_campaign=x", "example.com/item?id=42"],
    ["https://example.com/item?b=2&a=1", "example.com/item?a=1&b=2"],
    ["https://www.youtube.com/watch?v=abc123&si=share&feature=share", "youtube.com/watch?v=abc123"],
  ])("%s reads as %s", (link, key) => {
    expect(normalizeUrl(link)).toBe(key);
  });

  it("keeps the path's case and what tells pages apart", () => {
    expect(normalizeUrl("https://example.com/Item?id=1")).not.toBe(normalizeUrl("https://example.com/Item?id=2"));
    expect(normalizeUrl("https://example.com/A")).not.toBe(normalizeUrl("https://example.com/a"));
  });

  it("is null for a home page and for what is not an http(s) link", () => {
    expect(normalizeUrl("https://www.example.com/")).toBeNull();
    expect(normalizeUrl("ftp://example.com/file")).toBeNull();
    expect(normalizeUrl("not a link")).toBeNull();
  });

  it("finds the links of a text without the punctuation after them", () => {
    expect(linksOf(undefined, "Read this (https://example.com/post?utm_source=x). Also https://example.com/post! And https://example.com/other.")).toEqual([
      "example.com/post",
      "example.com/other",
    ]);
  });
});

describe("a text's signature", () => {
  const text = "Acme just shipped offline sync for its notes app and early testers say it finally works on the subway";
  const similarity = (a: string, b: string) => similarityOf(signatureOf(signatureWordsOf(undefined, a)), signatureOf(signatureWordsOf(undefined, b)));

  it("ignores a retweet prefix, a link, a via and hashtags added", () => {
    expect(signatureWordsOf(undefined, `RT @acme: ${text} https://t.co/xyz #notes #productivity`)).toEqual(signatureWordsOf(undefined, text));
    expect(signatureWordsOf(undefined, `${text} via @technews`)).toEqual(signatureWordsOf(undefined, text));
  });

  it("keeps near-identical texts within the threshold", () => {
    expect(similarity(text, text.replace("finally", "really"))).toBeGreaterThanOrEqual(SIMILARITY_THRESHOLD);
    expect(similarity(text, `Big news: ${text.split(" ").slice(0, 16).join(" ")}…`)).toBeGreaterThanOrEqual(SIMILARITY_THRESHOLD);
    expect(similarity(text, `${text}!`)).toBe(1);
  });

  it("puts unrelated texts of the same topic beyond it", () => {
    expect(similarity(text, "Acme notes app review: sync is slow, search is great, and the subway mode drains the battery fast")).toBeLessThan(SIMILARITY_THRESHOLD);
    expect(similarity(text, "Acme just shipped offline sync for its notes app, read our hands-on review of the beta")).toBeLessThan(SIMILARITY_THRESHOLD);
  });

  it("gives no text keys to a text too short to tell a copy from a coincidence", () => {
    expect(storySignalsOf(undefined, "love this!").textKeys).toEqual([]);
    expect(storySignalsOf(undefined, text).textKeys.length).toBeGreaterThan(1);
  });
});
