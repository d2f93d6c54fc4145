import { randomBytes } from "node:crypto";
import { escapeHtml } from "../pages/html";
import type { AppContext } from "./app-context";
import type { Problem } from "./run-operation";

// A refused form comes back with each field's message beside that field (the field marked aria-invalid
// and described by the message, so a screen reader reads it with the field) and what the person typed
// still in it. The operation's field paths (`name`, `digest.hour`, `filters.minRelevance`) decide which
// field a message belongs to; a message no field of the form shows, and the problem's detail, head the
// form in a summary with role=alert.

/** The problems the person mends on the form that sent them (a value, a limit, a clash); any other gets its own page. */
const SHOWN_ON_THE_FORM = new Set([400, 402, 409]);

/** Answers a refused post: its page again with the problem at the form `form` (by `again`), or the problem's own page. */
export const showRefusal = (ctx: AppContext, problem: Problem, form: string, again: (f: FormFailure) => Promise<void>): Promise<void> | void =>
  SHOWN_ON_THE_FORM.has(problem.status) ? again({ form, problem, values: ctx.req.body as Record<string, unknown> }) : ctx.problem(problem);

/** A form's idempotency key, fresh each time the form is shown: the form sent twice (a double click, a reload) acts once. */
export const idempotencyField = (): string => `<input type="hidden" name="idem" value="${randomBytes(12).toString("base64url")}">`;

/** The key a form posted (`idem`); none when absent or empty. */
export const idempotencyKeyOf = (body: unknown): string | undefined => {
  const key = (body as Record<string, unknown> | undefined)?.idem;
  return typeof key === "string" && key !== "" ? key : undefined;
};

/** A form sent back refused: which of the page's forms, the problem, and the values it was sent with. */
export interface FormFailure {
  form: string;
  problem: Problem;
  values: Record<string, unknown>;
}

const under = (path: string, names: readonly string[]) => names.some((n) => path === n || path.startsWith(`${n}.`) || path.startsWith(`${n}[`) || path.startsWith(`${n}/`));

export class FormErrors {
  private readonly placed = new Set<string>();
  private readonly failure: FormFailure | undefined;

  constructor(failure: FormFailure | undefined, form: string) {
    this.failure = failure?.form === form ? failure : undefined;
  }

  /** Whether this form is the one refused. */
  get refused(): boolean {
    return this.failure !== undefined;
  }

  /** What was typed into `name` when this form was refused; `fallback` otherwise. */
  value(name: string, fallback = ""): string {
    const v = this.failure?.values[name];
    return typeof v === "string" ? v : fallback;
  }

  /** The values checked for `name` when this form was refused (checkboxes); `fallback` otherwise. */
  values(name: string, fallback: readonly string[]): readonly string[] {
    if (!this.failure) return fallback;
    const v = this.failure.values[name];
    return Array.isArray(v) ? v.map(String) : typeof v === "string" ? [v] : [];
  }

  /**
   * The field `id`'s attributes and message, for the problem's errors at `paths` (the operation's names for
   * what the field sets): ` aria-invalid="true" aria-describedby="<id>-error"` and the message element.
   */
  field(id: string, paths: readonly string[]): { attrs: string; message: string } {
    const errors = (this.failure?.problem.errors ?? []).filter((e) => under(e.path, paths));
    if (errors.length === 0) return { attrs: "", message: "" };
    for (const e of errors) this.placed.add(e.path);
    const safeId = escapeHtml(id);
    return {
      attrs: ` aria-invalid="true" aria-describedby="${safeId}-error"`,
      message: `<span class="field-error" id="${safeId}-error">${errors.map((e) => escapeHtml(e.message)).join("; ")}</span>`,
    };
  }

  /** The summary heading the form: the problem's detail and the messages no field showed. Call it after the fields. */
  summary(): string {
    if (!this.failure) return "";
    const p = this.failure.problem;
    const rest = (p.errors ?? []).filter((e) => !this.placed.has(e.path));
    const detail = p.detail ?? "That did not work.";
    return `<div class="error" role="alert"><p>${escapeHtml(detail)}</p>${
      rest.length ? `<ul>${rest.map((e) => `<li><code>${escapeHtml(e.path)}</code> ${escapeHtml(e.message)}</li>`).join("")}</ul>` : ""
    }</div>`;
  }
}
