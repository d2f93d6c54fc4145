import { existsSync, readFileSync } from "node:fs";
import { type Browser, chromium, type Page } from "playwright-core";

// Real Chromium for the pages people open: `make test` installs Debian's chromium when it is missing;
// where that is impossible a suite using it is skipped with the reason printed. Each page is checked as
// a person's browser sees it: no console errors, and axe-core's accessibility rules (no serious or
// critical violation).

export const CHROMIUM = process.env.EARSHOT_CHROMIUM ?? "/usr/bin/chromium";

/** `describe`, or `describe.skip` with the reason printed when there is no Chromium. */
export const describeInChromium = (name: string, fn: () => void): void => {
  if (existsSync(CHROMIUM)) return describe(name, fn);
  process.stdout.write(`[browser] SKIPPED "${name}": no Chromium at ${CHROMIUM} (make test installs Debian's chromium; it could not here)\n`);
  describe.skip(name, fn);
};

/** playwright launches with a fresh temporary profile of its own. */
export const launchChromium = (): Promise<Browser> =>
  chromium.launch({
    executablePath: CHROMIUM,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });

/** Collects what the page logs as errors (console errors and uncaught exceptions) while it lives. */
export const watchConsole = (page: Page): string[] => {
  const errors: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  page.on("pageerror", (e) => errors.push(e.message));
  return errors;
};

const AXE = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");

export interface Violation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/**
 * axe-core's serious and critical violations on the page as it is now. The script is evaluated through
 * the browser's debugging protocol, which the pages' CSP (no scripts at all) does not govern.
 */
export const seriousViolations = async (page: Page): Promise<Violation[]> => {
  await page.evaluate(AXE);
  const found = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run: (context: unknown) => Promise<{ violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: unknown[] }> }> }> } }).axe;
    const result = await axe.run(document);
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(" ")) }));
  });
  return found.filter((v) => v.impact === "serious" || v.impact === "critical");
};
