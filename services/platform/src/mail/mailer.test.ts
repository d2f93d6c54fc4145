import { generateKeyPairSync } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { SMTPServer } from "smtp-server";
import { silentLogger } from "../logger";
import { makeTempDir } from "../testing/tmp";
import { dkimVerify } from "mailauth/lib/dkim/verify";
import { dkimFromSettings } from "./dkim";
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

  describe("DKIM", () => {
    const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const pem = privateKey.export({ type: "pkcs8", format: "pem" }) as string;
    const record = `v=DKIM1; k=rsa; p=${publicKey.export({ type: "spki", format: "der" }).toString("base64")}`;
    // The DNS answer a receiver would find at <selector>._domainkey.<domain>.
    const resolver = async (name: string, type: string) => {
      if (type === "TXT" && name === "es1._domainkey.earshot.test") return [[record]];
      throw Object.assign(new Error(`no ${type} record for ${name}`), { code: "ENOTFOUND" });
    };

    it("signs each message so a receiver verifies it, the one-click unsubscribe headers covered", async () => {
      const tmp = await makeTempDir();
      const mailer = createMailer({
        from: "Earshot <no-reply@earshot.test>",
        dataDir: tmp.dir,
        logger: silentLogger(),
        dkim: dkimFromSettings({ EARSHOT_DKIM_DOMAIN: "earshot.test", EARSHOT_DKIM_SELECTOR: "es1", EARSHOT_DKIM_PRIVATE_KEY: pem }),
      });
      try {
        const sent = await mailer.send({
          to: "owner@example.com",
          subject: "Complaints for Launch: 2 new mentions",
          text: "2 new mentions",
          headers: { "List-Unsubscribe": "<https://earshot.test/app/unsubscribe/u1.a.b>", "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" },
        });
        const eml = await readFile(sent.via);
        const verified = await dkimVerify(eml, { resolver });
        expect(verified.results).toHaveLength(1);
        expect(verified.results[0]).toMatchObject({ signingDomain: "earshot.test", selector: "es1", status: { result: "pass" } });
        const signed = /^DKIM-Signature:[\s\S]*?\bh=([^;]+);/m.exec(eml.toString())?.[1]?.replace(/\s+/g, "").toLowerCase().split(":") ?? [];
        expect(signed).toEqual(expect.arrayContaining(["from", "subject", "list-unsubscribe", "list-unsubscribe-post"]));
        // Changed in transit, the header no longer verifies.
        const altered = eml.toString().replace("List-Unsubscribe=One-Click", "List-Unsubscribe=Two-Clicks");
        expect((await dkimVerify(Buffer.from(altered), { resolver })).results[0]?.status.result).toBe("fail");
      } finally {
        mailer.close();
        await tmp.cleanup();
      }
    });

    it("signs mail sent through SMTP as well", async () => {
      const received: string[] = [];
      const server = new SMTPServer({
        authOptional: true,
        disabledCommands: ["STARTTLS"],
        onData(stream, _session, callback) {
          const chunks: Buffer[] = [];
          stream.on("data", (c: Buffer) => chunks.push(c));
          stream.on("end", () => {
            received.push(Buffer.concat(chunks).toString());
            callback();
          });
        },
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      const tmp = await makeTempDir();
      const mailer = createMailer({
        from: "Earshot <no-reply@earshot.test>",
        smtpUrl: `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}?ignoreTLS=true`,
        dataDir: tmp.dir,
        logger: silentLogger(),
        dkim: { domainName: "earshot.test", keySelector: "es1", privateKey: pem },
      });
      try {
        await mailer.send({ to: "owner@example.com", subject: "Invited", text: "Accept: https://earshot.test/invitations/t", headers: { "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" } });
        expect((await dkimVerify(Buffer.from(received[0]!), { resolver })).results[0]?.status.result).toBe("pass");
      } finally {
        mailer.close();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await tmp.cleanup();
      }
    });

    it("takes all three settings or none, and refuses a key that is not an RSA private key", () => {
      expect(dkimFromSettings({})).toBeUndefined();
      expect(() => dkimFromSettings({ EARSHOT_DKIM_DOMAIN: "earshot.test" })).toThrow("EARSHOT_DKIM_DOMAIN, EARSHOT_DKIM_SELECTOR and EARSHOT_DKIM_PRIVATE_KEY go together");
      expect(() => dkimFromSettings({ EARSHOT_DKIM_DOMAIN: "earshot.test", EARSHOT_DKIM_SELECTOR: "es1", EARSHOT_DKIM_PRIVATE_KEY: "not a key" })).toThrow("EARSHOT_DKIM_PRIVATE_KEY must be a private key in PEM form");
      const ec = generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey.export({ type: "pkcs8", format: "pem" }) as string;
      expect(() => dkimFromSettings({ EARSHOT_DKIM_DOMAIN: "earshot.test", EARSHOT_DKIM_SELECTOR: "es1", EARSHOT_DKIM_PRIVATE_KEY: ec })).toThrow("must be an RSA key");
    });
  });
});
