import type { Harness } from "./harness";

// A browser as plain HTTP sees the web app: a cookie jar, forms read from the page and posted back with
// Earshot's Origin. Redirects are not followed, so each test sees every 303 and Set-Cookie.

export const PASSWORD = "correct horse battery";

export const fieldOf = (html: string, name: string): string => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? "";

export class WebClient {
  readonly cookies = new Map<string, string>();
  constructor(
    private readonly h: Harness,
    private readonly headers: Record<string, string> = {},
  ) {}

  get cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  private keep(res: Response): Response {
    for (const c of res.headers.getSetCookie()) {
      const [pair = ""] = c.split(";");
      const at = pair.indexOf("=");
      const name = pair.slice(0, at);
      const value = pair.slice(at + 1);
      if (/Max-Age=0/i.test(c) || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }

  async get(path: string, headers: Record<string, string> = {}): Promise<{ res: Response; html: string }> {
    const res = this.keep(await fetch(`${this.h.url}${path}`, { redirect: "manual", headers: { ...this.headers, Cookie: this.cookieHeader, ...headers } }));
    return { res, html: await res.text() };
  }

  async post(path: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<{ res: Response; html: string }> {
    const res = this.keep(
      await fetch(`${this.h.url}${path}`, {
        method: "POST",
        redirect: "manual",
        headers: { ...this.headers, "Content-Type": "application/x-www-form-urlencoded", Origin: new URL(this.h.url).origin, Cookie: this.cookieHeader, ...headers },
        body: new URLSearchParams(fields).toString(),
      }),
    );
    return { res, html: await res.text() };
  }

  /** Opens the sign-in page and signs in; returns the answer to the post (a 303 on success). */
  async signIn(email: string, password = PASSWORD, next = "/app"): Promise<{ res: Response; html: string }> {
    const { html } = await this.get(`/app/sign-in?next=${encodeURIComponent(next)}`);
    return this.post("/app/sign-in", { csrf: fieldOf(html, "csrf"), next: fieldOf(html, "next"), email, password });
  }
}
