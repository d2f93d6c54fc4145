import { FeedFormatError, parseFeed, plainText, unwrapRedirect } from "./parse-feed";

// Feeds as sites and services publish them: RSS 2.0, RSS 1.0 (RDF), Atom 1.0, Google Alerts' Atom.

const RSS = `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:dc="http://purl.org/dc/elements/1.1/">
<channel><title>Acme Blog</title><link>https://blog.example.com/</link>
<item><title>Acme 2.0 is out</title><link>https://blog.example.com/acme-2</link><guid isPermaLink="true">https://blog.example.com/acme-2</guid>
<pubDate>Sat, 28 Nov 2026 10:00:00 GMT</pubDate><dc:creator>Jo Lee</dc:creator>
<description><![CDATA[<p>We shipped <b>Acme</b> 2.0 &amp; more.</p>]]></description>
<content:encoded><![CDATA[<p>Full post: Acme 2.0 brings&nbsp;speed.</p><script>alert(1)</script>]]></content:encoded></item>
<item><title>Second</title><guid isPermaLink="false">tag:blog.example.com,2026:2</guid><link>https://blog.example.com/2</link>
<pubDate>yesterday-ish</pubDate><author>ann@example.com (Ann Wu)</author><description>Plain text about acme</description></item>
</channel></rss>`;

const RDF = `<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/">
<channel rdf:about="https://news.example.org/"><title>News</title></channel>
<item rdf:about="https://news.example.org/a"><title>Acme raises</title><link>https://news.example.org/a</link><description>Acme raised money.</description><dc:date>2026-11-27T08:30:00Z</dc:date><dc:creator>Desk</dc:creator></item>
</rdf:RDF>`;

const ATOM = `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>Acme releases</title>
<entry><id>urn:uuid:1225c695-cfb8-4ebb-aaaa-80da344efa6a</id><title type="html">Acme &lt;em&gt;3.1&lt;/em&gt;</title>
<link rel="self" href="https://example.com/feed/1"/><link rel="alternate" type="text/html" href="https://example.com/releases/3.1"/>
<updated>2026-11-28T09:00:00Z</updated><published>2026-11-28T08:00:00+01:00</published><author><name>Release bot</name></author>
<summary>Bug fixes for acme.</summary></entry>
</feed>`;

const GOOGLE_ALERTS = `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:idx="urn:atom-extension:indexing"><id>tag:google.com,2005:reader/user/1/state/com.google/alerts/2</id><title>Google Alert - acme</title>
<entry><id>tag:google.com,2013:googlealerts/feed:123</id><title type="html">&lt;b&gt;Acme&lt;/b&gt; opens a new office</title>
<link href="https://www.google.com/url?rct=j&amp;sa=t&amp;url=https://www.news.example/acme-office&amp;ct=ga&amp;cd=CAE&amp;usg=AOv"/>
<published>2026-11-28T07:00:00Z</published><updated>2026-11-28T07:00:00Z</updated><content type="html">The &lt;b&gt;Acme&lt;/b&gt; company opened an office.</content><author><name/></author></entry>
</feed>`;

describe("parseFeed", () => {
  it("reads RSS 2.0: guid, link, the full content as plain text, dc:creator and the name in an author email", () => {
    const feed = parseFeed(RSS);
    expect(feed).toMatchObject({ format: "rss", title: "Acme Blog" });
    expect(feed.entries[0]).toEqual({
      id: "https://blog.example.com/acme-2",
      url: "https://blog.example.com/acme-2",
      title: "Acme 2.0 is out",
      text: "Acme 2.0 is out\nFull post: Acme 2.0 brings speed.",
      author: "Jo Lee",
      publishedAt: new Date("2026-11-28T10:00:00Z"),
    });
    expect(feed.entries[1]).toMatchObject({ id: "tag:blog.example.com,2026:2", author: "Ann Wu", text: "Second\nPlain text about acme" });
  });

  it("leaves a date it cannot read out, so the fetch time stands in", () => {
    expect(parseFeed(RSS).entries[1]!.publishedAt).toBeUndefined();
  });

  it("reads RSS 1.0 (RDF) with dc:date and dc:creator", () => {
    expect(parseFeed(RDF)).toEqual({
      format: "rdf",
      title: "News",
      entries: [{ id: "https://news.example.org/a", url: "https://news.example.org/a", title: "Acme raises", text: "Acme raises\nAcme raised money.", author: "Desk", publishedAt: new Date("2026-11-27T08:30:00Z") }],
    });
  });

  it("reads Atom 1.0: the alternate link, an HTML title as text, published before updated", () => {
    expect(parseFeed(ATOM).entries).toEqual([
      {
        id: "urn:uuid:1225c695-cfb8-4ebb-aaaa-80da344efa6a",
        url: "https://example.com/releases/3.1",
        title: "Acme 3.1",
        text: "Acme 3.1\nBug fixes for acme.",
        author: "Release bot",
        publishedAt: new Date("2026-11-28T07:00:00Z"),
      },
    ]);
  });

  it("unwraps Google Alerts' redirect links to the page itself", () => {
    const [e] = parseFeed(GOOGLE_ALERTS).entries;
    expect(e).toMatchObject({ url: "https://www.news.example/acme-office", title: "Acme opens a new office", text: "Acme opens a new office\nThe Acme company opened an office." });
    expect(unwrapRedirect("https://www.google.com/url?q=javascript:alert(1)")).toBe("https://www.google.com/url?q=javascript:alert(1)");
  });

  it("refuses what is not a feed, and a document declaring entities", () => {
    expect(() => parseFeed("<html><body>hello</body></html>")).toThrow(FeedFormatError);
    expect(() => parseFeed("not xml at all <<<")).toThrow(FeedFormatError);
    expect(() => parseFeed('<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;">]><rss><channel><item><title>&b;</title></item></channel></rss>')).toThrow(/entities/);
  });

  it("makes plain text of HTML: tags and scripts dropped, entities decoded", () => {
    expect(plainText("<p>A &amp; B&#39;s <a href='x'>link</a></p><script>x()</script><p>next&#x21;</p>")).toBe("A & B's link\nnext!");
  });
});
