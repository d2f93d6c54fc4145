import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import nodemailer from "nodemailer";
import type { Logger } from "../logger";
import { DKIM_SIGNED_HEADERS, type DkimSigning } from "./dkim";

// The mail port. With an SMTP URL mail goes out through it; without one (the embedded default) each
// message is written as an .eml file under <dataDir>/mail/, which a person can open in any mail client.

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
  /** Extra header lines, e.g. `List-Unsubscribe` on alert emails. */
  headers?: Record<string, string>;
}

export interface SentMail {
  messageId: string;
  /** Where it went: `smtp` or the .eml file path. */
  via: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<SentMail>;
  close(): void;
}

export interface MailerOptions {
  from: string;
  smtpUrl?: string;
  dataDir: string;
  logger: Logger;
  /** Signs every message (DKIM), the unsubscribe headers included; none when the relay signs. */
  dkim?: DkimSigning;
}

export const createMailer = (options: MailerOptions): Mailer => {
  const dkim = options.dkim ? { dkim: { ...options.dkim, headerFieldNames: DKIM_SIGNED_HEADERS } } : {};
  if (options.smtpUrl) {
    const transport = nodemailer.createTransport(options.smtpUrl, dkim);
    return {
      send: async (message) => {
        const info = await transport.sendMail({ from: options.from, ...message });
        options.logger.info({ to: message.to, subject: message.subject, messageId: info.messageId }, "mail sent");
        return { messageId: info.messageId, via: "smtp" };
      },
      close: () => transport.close(),
    };
  }
  const dir = join(options.dataDir, "mail");
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "unix", ...dkim });
  return {
    send: async (message) => {
      const info = (await transport.sendMail({ from: options.from, ...message })) as { messageId: string; message: Buffer };
      await mkdir(dir, { recursive: true });
      const safeId = info.messageId.replace(/[^A-Za-z0-9@._-]/g, "");
      const file = join(dir, `${new Date().toISOString().replace(/[:.]/g, "-")}-${safeId}.eml`);
      await writeFile(file, info.message, { mode: 0o600 });
      options.logger.info({ to: message.to, subject: message.subject, file }, "mail written");
      return { messageId: info.messageId, via: file };
    },
    close: () => transport.close(),
  };
};
