import { readdir, readFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { SMTPServer } from "smtp-server";
import { silentLogger } from "../logger";
import { makeTempDir } from "../testing/tmp";
import { createMailer } from "./mailer";

describe("mailer", () => {
  it("delivers through a real SMTP server when an SMTP URL is configured", async () => {
    const received: Array<{ from: string; to: string[]; raw: string }> = [];
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ["STARTTLS"],
      onData(stream, session, callback) {
        let raw = "";
        stream.on("data", (c: Buffer) => (raw += c.toString()));
        stream.on("end", () => {
          received.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
            to: session.envelope.rcptTo.map((r) => r.address),
            raw,
          });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.server.address() as AddressInfo;
    const tmp = await makeTempDir();
    const mailer = createMailer({
      from: "Earshot <no-reply@earshot.test>",
      smtpUrl: `smtp://127.0.0.1:${port}?ignoreTLS=true`,
      dataDir: tmp.dir,
      logger: silentLogger(),
    });
    try {
      const sent = await mailer.send({ to: "ana@example.com", subject: "You are invited", text: "Open https://x/accept" });
      expect(sent.via).toBe("smtp");
      expect(received).toHaveLength(1);
      expect(received[0]?.to).toEqual(["ana@example.com"]);
      expect(received[0]?.from).toBe("no-reply@earshot.test");
      expect(received[0]?.raw).toContain("Subject: You are invited");
      expect(received[0]?.raw).toContain("Open https://x/accept");
    } finally {
      mailer.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await tmp.cleanup();
    }
  });

  it("writes an .eml file under the data dir when no SMTP URL is configured", async () => {
    const tmp = await makeTempDir();
    const mailer = createMailer({ from: "Earshot <no-reply@earshot.test>", dataDir: tmp.dir, logger: silentLogger() });
    try {
      const sent = await mailer.send({ to: "bo@example.com", subject: "Daily digest", text: "3 new mentions" });
      const files = await readdir(join(tmp.dir, "mail"));
      expect(files).toHaveLength(1);
      expect(sent.via).toBe(join(tmp.dir, "mail", files[0] as string));
      const eml = await readFile(sent.via, "utf8");
      expect(eml).toContain("To: bo@example.com");
      expect(eml).toContain("Subject: Daily digest");
      expect(eml).toContain("3 new mentions");
    } finally {
      mailer.close();
      await tmp.cleanup();
    }
  });
});
