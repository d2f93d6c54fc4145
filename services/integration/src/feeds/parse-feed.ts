import { XMLParser } from "fast-xml-parser";

// A feed document as entries, whatever its dialect: RSS 2.0 (`rss/channel/item`, with `content:encoded`,
// `dc:creator`, `dc:date`), RSS 1.0 (`rdf:RDF/item`), Atom 1.0 (`feed/entry`, links by `rel`, `content`
// or `summary`), and Google Alerts' Atom, whose links go through a google.com redirect carrying the real
// address in `url`. Text is the entry's title and summary (or content) as plain text. A date that cannot
// be read is left out (the caller uses the time it fetched). fast-xml-parser: small, maintained, no
// dependencies, and it never fetches anything (no external entities); documents declaring entities are
// refused outright, so no expansion can blow up.

export interface FeedEntry {
  /** guid, Atom id, or the link: what says two fetches saw the same entry. */
  id: string;
  url?: string;
  title?: string;
  text: string;
  author?: string;
  publishedAt?: Date;
}

export interface ParsedFeed {
  format: "rss" | "rdf" | "atom";
  title?: string;
  entries: FeedEntry[];
}

export class FeedFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FeedFormatError";
  }
}

/** Entries read from one document: a feed of thousands says nothing more in its thousandth. */
export const MAX_ENTRIES = 500;
const MAX_TEXT = 4000;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  textNodeName: "#text",
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  processEntities: true,
  htmlEntities: true,
  isArray: (name) => ["item", "entry", "link", "category"].includes(name),
});

type Node = Record<string, unknown>;
const isNode = (v: unknown): v is Node => typeof v === "object" && v !== null && !Array.isArray(v);

/** The text of an element: a string, or an element with attributes whose text is `#text`. */
const textOf = (v: unknown): string | undefined => {
  if (typeof v === "string") return v;
  if (typeof v === "number") return String(v);
  if (Array.isArray(v)) return textOf(v[0]);
  if (isNode(v) && v["#text"] !== undefined) return textOf(v["#text"]);
  return undefined;
};

const HTML_ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " ", "#39": "'" };

/** HTML (as descriptions and Google Alerts' titles are) as plain text: tags dropped, entities decoded, spaces collapsed. */
export const plainText = (html: string): string =>
  html
    .replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, " ")
    .replace(/<br\s*\/?>|<\/p>|<\/div>|<\/li>/gi, "\n")
    .replace(/<[^>]*>/g, " ")
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+\d*);/gi, (m, name: string) => {
      if (name[0] === "#") {
        const code = name[1] === "x" || name[1] === "X" ? Number.parseInt(name.slice(2), 16) : Number.parseInt(name.slice(1), 10);
        return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : m;
      }
      return HTML_ENTITIES[name.toLowerCase()] ?? m;
    })
    .replace(/[ \t\r\f\v]+/g, " ")
    .replace(/\s*\n\s*/g, "\n")
    .trim();

/** Google Alerts links through `https://www.google.com/url?…&url=<the page>`: the page is the entry's link. */
export const unwrapRedirect = (href: string): string => {
  try {
    const u = new URL(href);
    if (/(^|\.)google\.[a-z.]+$/.test(u.hostname) && u.pathname === "/url") {
      const target = u.searchParams.get("url") ?? u.searchParams.get("q");
      if (target && /^https?:\/\//.test(target)) return target;
    }
  } catch {
    // Not a URL: kept as it is, and refused as a link below.
  }
  return href;
};

const httpUrl = (s: string | undefined): string | undefined => {
  if (!s) return undefined;
  const href = unwrapRedirect(s.trim());
  try {
    const u = new URL(href);
    return u.protocol === "http:" || u.protocol === "https:" ? u.toString() : undefined;
  } catch {
    return undefined;
  }
};

const dateOf = (...values: unknown[]): Date | undefined => {
  for (const v of values) {
    const s = textOf(v);
    if (!s) continue;
    const ms = Date.parse(s.trim());
    // Before 1990 is a feed's mistake (an empty date read as the epoch), not a publication time.
    if (Number.isFinite(ms) && ms > Date.UTC(1990, 0, 1)) return new Date(ms);
  }
  return undefined;
};

const entry = (fields: { id?: string; url?: string; title?: string; body?: string; author?: string; publishedAt?: Date }): FeedEntry | null => {
  const title = fields.title ? plainText(fields.title) : undefined;
  const body = fields.body ? plainText(fields.body) : "";
  const text = (title && body && !body.startsWith(title) ? `${title}\n${body}` : body || title || "").slice(0, MAX_TEXT);
  const id = (fields.id?.trim() || fields.url || (text ? `text:${text.slice(0, 200)}` : "")).slice(0, 500);
  if (!id || !text) return null;
  return {
    id,
    text,
    ...(fields.url ? { url: fields.url } : {}),
    ...(title ? { title: title.slice(0, 300) } : {}),
    ...(fields.author ? { author: fields.author.slice(0, 200) } : {}),
    ...(fields.publishedAt ? { publishedAt: fields.publishedAt } : {}),
  };
};

/** RSS's `author` is an email with the name in parentheses: `jo@example.com (Jo Lee)`. */
const rssAuthor = (item: Node): string | undefined => {
  const creator = textOf(item["dc:creator"]);
  if (creator) return creator;
  const author = textOf(item.author);
  return author ? (/\(([^)]+)\)/.exec(author)?.[1] ?? author) : undefined;
};

const rssItem = (item: Node): FeedEntry | null => {
  const guid = item.guid;
  const permalink = isNode(guid) && guid["@_isPermaLink"] !== "false" ? textOf(guid) : typeof guid === "string" ? guid : undefined;
  const url = httpUrl(textOf(item.link)) ?? httpUrl(permalink);
  return entry({
    id: textOf(guid) ?? url,
    url,
    title: textOf(item.title),
    body: textOf(item["content:encoded"]) ?? textOf(item.description),
    author: rssAuthor(item),
    publishedAt: dateOf(item.pubDate, item["dc:date"]),
  });
};

const atomLink = (links: unknown): string | undefined => {
  const list = (Array.isArray(links) ? links : [links]).filter(isNode);
  const pick = list.find((l) => l["@_rel"] === undefined || l["@_rel"] === "alternate") ?? list[0];
  return httpUrl(typeof pick?.["@_href"] === "string" ? pick["@_href"] : undefined);
};

const atomEntry = (e: Node): FeedEntry | null => {
  const author = isNode(e.author) ? textOf(e.author.name) : Array.isArray(e.author) && isNode(e.author[0]) ? textOf((e.author[0] as Node).name) : undefined;
  const url = atomLink(e.link);
  return entry({ id: textOf(e.id) ?? url, url, title: textOf(e.title), body: textOf(e.summary) ?? textOf(e.content), author, publishedAt: dateOf(e.published, e.updated) });
};

/** The feed's entries, newest first as the document lists them; throws FeedFormatError for what is not a feed. */
export const parseFeed = (xml: string): ParsedFeed => {
  if (/<!ENTITY/i.test(xml)) throw new FeedFormatError("the document declares entities, which a feed never needs");
  let doc: Node;
  try {
    doc = parser.parse(xml) as Node;
  } catch (err) {
    throw new FeedFormatError(`not well-formed XML: ${(err as Error).message.split("\n")[0]}`);
  }
  const take = <T>(items: unknown, read: (n: Node) => T | null): T[] =>
    (Array.isArray(items) ? items : items === undefined ? [] : [items])
      .filter(isNode)
      .slice(0, MAX_ENTRIES)
      .map(read)
      .filter((x): x is T => x !== null);
  if (isNode(doc.rss)) {
    const channel = Array.isArray(doc.rss.channel) ? (doc.rss.channel[0] as unknown) : doc.rss.channel;
    if (!isNode(channel)) throw new FeedFormatError("an RSS document without a channel");
    return { format: "rss", title: textOf(channel.title), entries: take(channel.item, rssItem) };
  }
  if (isNode(doc["rdf:RDF"])) {
    const rdf = doc["rdf:RDF"];
    const channel = isNode(rdf.channel) ? rdf.channel : undefined;
    return { format: "rdf", title: textOf(channel?.title), entries: take(rdf.item, rssItem) };
  }
  if (isNode(doc.feed)) return { format: "atom", title: textOf(doc.feed.title), entries: take(doc.feed.entry, atomEntry) };
  throw new FeedFormatError("neither RSS nor Atom (no rss, rdf:RDF or feed element)");
};
