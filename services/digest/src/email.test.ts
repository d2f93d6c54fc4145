import type { AddressInfo } from "node:net";
import { createMailer, silentLogger, verifyUnsubscribeToken } from "@earshot/platform";
import { makeTempDir } from "@earshot/platform/testing";
import { simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";
import { type DigestWorld, LINK_KEY, openDigestWorld, PUBLIC_URL } from "./test-support";
import { tick } from "./domain/scheduler";

// The emails as a mail client sees them: sent through a real SMTP server to the workspace owner, with a
// plain-text and an HTML part that parse, the mentions listed with their links, people's text escaped, and
// RFC 8058 one-click unsubscribe headers whose link carries a token signed for this rule and its owner.

interface Received {
  to: string[];
  raw: string;
}

const startSmtp = async () => {
  const received: Received[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    onData(stream, session, callback) {
      let raw = "";
      stream.on("data", (c: Buffer) => (raw += c.toString()));
      stream.on("end", () => {
        received.push({ to: session.envelope.rcptTo.map((r) => r.address), raw });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.server.address() as AddressInfo;
  return { received, url: `smtp://127.0.0.1:${port}?ignoreTLS=true`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
};

describe("digest and alert emails", () => {
  let world: DigestWorld | undefined;
  afterEach(async () => world?.close());

  it("reach the workspace owner through SMTP as text and HTML listing the mentions, counts and links, people's text escaped", async () => {
    const smtp = await startSmtp();
    const tmp = await makeTempDir();
    const mailer = createMailer({ from: "Earshot <no-reply@earshot.test>", smtpUrl: smtp.url, dataDir: tmp.dir, logger: silentLogger() });
    try {
      world = await openDigestWorld(new Date("2027-02-10T06:00:00Z"), mailer);
      const owner = await world.owner("owner@example.com");
      const { projectId, dailyDigestId } = await world.project(owner.workspaceId, "UTC", "Launch <b>2027</b>");
      // Whoever made a rule (an editor here: events do not even say), its emails go to the workspace owner.
      await world.mention(projectId, owner.workspaceId, { text: "Acme <script>alert(1)</script> & friends", url: "https://www.reddit.com/r/x/comments/abc/" });
      await world.mention(projectId, owner.workspaceId, {
        source: "youtube",
        text: "Acme unboxing",
        url: "https://www.youtube.com/watch?v=abc",
        author: { id: "UC1", handle: "acmefans", name: "Acme Fans" },
      });
      world.clock.set("2027-02-10T08:00:00Z");
      await tick(world.deps);

      expect(smtp.received).toHaveLength(1);
      expect(smtp.received[0]?.to).toEqual(["owner@example.com"]);
      const mail = await simpleParser(smtp.received[0]?.raw ?? "");
      expect(mail.subject).toBe("Daily Digest for Launch <b>2027</b>: 2 mentions on 2027-02-10");
      // RFC 8058: an https link in List-Unsubscribe and List-Unsubscribe-Post naming the one-click body.
      const unsubscribe = (mail.headers.get("list") as { unsubscribe: { url: string } }).unsubscribe.url;
      expect(unsubscribe).toMatch(new RegExp(`^${PUBLIC_URL}/app/unsubscribe/u1\\.[\\w-]+\\.[\\w-]{43}$`));
      expect(mail.headerLines.find((l) => l.key === "list-unsubscribe-post")?.line).toBe("List-Unsubscribe-Post: List-Unsubscribe=One-Click");
      const token = verifyUnsubscribeToken(LINK_KEY, decodeURIComponent(unsubscribe.split("/").pop()!), world.clock.now());
      expect(token).toMatchObject({ ok: true, claims: { alertId: dailyDigestId, projectId, userId: owner.userId } });

      expect(mail.text).toContain("2 mentions matched \"Daily Digest\" in Launch <b>2027</b> from 2027-02-09 08:00 to 2027-02-10 08:00 (UTC).");
      expect(mail.text).toContain("Acme: 2");
      expect(mail.text).toContain("YouTube: 1");
      expect(mail.text).toContain("Reddit: 1");
      expect(mail.text).toContain("YouTube · Acme Fans (@acmefans)");
      expect(mail.text).toContain("https://www.youtube.com/watch?v=abc");
      // Every link opens a page of the web app: the inbox, each mention, the alert.
      expect(mail.text).toContain(`All of the project's mentions: ${PUBLIC_URL}/app/projects/${projectId}\n`);
      expect(mail.text).toMatch(new RegExp(`In Earshot \\(triage, match details\\): ${PUBLIC_URL}/app/projects/${projectId}/mentions/men_[0-9A-Z]{26}`));

      const html = String(mail.html);
      expect(html).toContain("Acme &lt;script&gt;alert(1)&lt;/script&gt; &amp; friends");
      expect(html).not.toContain("<script>");
      expect(html).toContain("Launch &lt;b&gt;2027&lt;/b&gt;");
      expect(html).toContain('href="https://www.reddit.com/r/x/comments/abc/"');
      expect(html).toContain('href="https://www.youtube.com/watch?v=abc"');
      expect(html).toContain(`href="${PUBLIC_URL}/app/projects/${projectId}/alerts/${dailyDigestId}"`);
      expect(html).toContain(`href="${unsubscribe}"`);
      expect(mail.text).toContain(`Unsubscribe (turns this alert off, no sign-in): ${unsubscribe}\n`);
      expect(html.match(new RegExp(`href="${PUBLIC_URL}/app/projects/${projectId}/mentions/men_[0-9A-Z]{26}"`, "g"))).toHaveLength(2);
      expect(html).not.toContain("/api/v1/");
    } finally {
      mailer.close();
      await smtp.close();
      await tmp.cleanup();
    }
  });

  it("show each author's handle once: one @, and none beside a name that is the handle again", async () => {
    const smtp = await startSmtp();
    const tmp = await makeTempDir();
    const mailer = createMailer({ from: "Earshot <no-reply@earshot.test>", smtpUrl: smtp.url, dataDir: tmp.dir, logger: silentLogger() });
    try {
      world = await openDigestWorld(new Date("2027-02-10T06:00:00Z"), mailer);
      const owner = await world.owner("owner@example.com");
      const { projectId } = await world.project(owner.workspaceId);
      // As the YouTube collector hands them over: a commenter's display name is its @handle, a video's
      // author handle is its channel's title, the name again.
      await world.mention(projectId, owner.workspaceId, { source: "youtube", text: "Acme comment", author: { id: "UCv10", handle: "@sim_viewer_10", name: "@sim_viewer_10" } });
      await world.mention(projectId, owner.workspaceId, { source: "youtube", text: "Acme video", author: { id: "UCc4", handle: "Simulated channel 4", name: "Simulated channel 4" } });
      await world.mention(projectId, owner.workspaceId, { source: "x", text: "Acme tweet", author: { id: "22", handle: "ana_dev", name: "Ana" } });
      world.clock.set("2027-02-10T08:00:00Z");
      await tick(world.deps);

      const mail = await simpleParser(smtp.received[0]?.raw ?? "");
      // Each listed author line ends the line in the text part and its element in the HTML part.
      for (const [part, end] of [[mail.text ?? "", "\n"], [String(mail.html), "</div>"]] as const) {
        expect(part).toContain(`YouTube · @sim_viewer_10${end}`);
        expect(part).toContain(`YouTube · Simulated channel 4${end}`);
        expect(part).toContain("X · Ana (@ana_dev)");
        expect(part).not.toContain("@@");
        expect(part).not.toContain("(@Simulated channel 4)");
        expect(part).not.toContain("(@sim_viewer_10)");
      }
    } finally {
      mailer.close();
      await smtp.close();
      await tmp.cleanup();
    }
  });

  it("never links a post URL that is not a web address", async () => {
    world = await openDigestWorld(new Date("2027-02-10T06:00:00Z"));
    const owner = await world.owner();
    const { projectId } = await world.project(owner.workspaceId);
    await world.rule(projectId, owner.workspaceId, { name: "Now", instant: true, digestEnabled: false });
    await world.mention(projectId, owner.workspaceId, { url: "javascript:alert(1)" });
    await tick(world.deps);
    expect(world.sent[0]?.html).not.toContain("javascript:");
    expect(world.sent[0]?.text).toContain("(no link)");
  });
});
