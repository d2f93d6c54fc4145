import { type Clock, conflict, type FieldError, isUniqueViolation, newId, notFound, type Outbox, validationFailed } from "@earshot/platform";
import type { AccountCollections, UserDoc, WorkspaceDoc } from "../store";
import { USERS, WORKSPACES } from "../store";
import { hashPassword } from "./password";

export interface CreateUserInput {
  email: string;
  name: string;
  password: string;
}

export interface AccountDeps {
  collections: AccountCollections;
  outbox: Outbox;
  clock: Clock;
}

// A pragmatic address check: one @, no spaces, a dot in the domain. Deliverability is proven by mail.
const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export const normalizeEmail = (email: string): string => email.trim().toLowerCase();

export const validateNewUser = (input: CreateUserInput): FieldError[] => {
  const errors: FieldError[] = [];
  const email = normalizeEmail(input.email);
  if (!EMAIL_RE.test(email) || email.length > 254) errors.push({ path: "email", message: "must be an email address" });
  const name = input.name.trim();
  if (name.length < 1 || name.length > 100) errors.push({ path: "name", message: "must be 1 to 100 characters" });
  if (input.password.length < 8 || input.password.length > 200) errors.push({ path: "password", message: "must be 8 to 200 characters" });
  return errors;
};

/** Registers a user and the workspace they own; emits `user.created`. */
export const createUser = async (deps: AccountDeps, input: CreateUserInput): Promise<UserDoc> => {
  const errors = validateNewUser(input);
  if (errors.length > 0) throw validationFailed(errors);
  const email = normalizeEmail(input.email);
  if (await deps.collections.users.findOne({ email })) throw conflict("A user with this email already exists.");
  const now = deps.clock.now();
  const userId = newId("usr", now.getTime());
  const workspace: WorkspaceDoc = { _id: newId("wsp", now.getTime()), ownerId: userId, plan: "free", createdAt: now, _v: 1 };
  const user: UserDoc = {
    _id: userId,
    email,
    name: input.name.trim(),
    passwordHash: await hashPassword(input.password),
    workspaceId: workspace._id,
    status: "active",
    createdAt: now,
    updatedAt: now,
    _v: 1,
  };
  try {
    await deps.outbox.commit(
      [
        { kind: "insert", collection: WORKSPACES, doc: workspace },
        { kind: "insert", collection: USERS, doc: user },
      ],
      [{ type: "user.created", source: "earshot/account", subject: userId, key: workspace._id, data: { userId, workspaceId: workspace._id, email } }],
    );
  } catch (err) {
    // Two registrations of one email racing: the unique index decides.
    if (isUniqueViolation(err)) throw conflict("A user with this email already exists.");
    throw err;
  }
  return user;
};

export const getUser = async (deps: AccountDeps, by: { id?: string; email?: string }): Promise<UserDoc> => {
  const user = by.id
    ? await deps.collections.users.findById(by.id)
    : by.email
      ? await deps.collections.users.findOne({ email: normalizeEmail(by.email) })
      : null;
  if (!user) throw notFound("User");
  return user;
};
