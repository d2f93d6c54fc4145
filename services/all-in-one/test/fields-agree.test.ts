import { OPERATIONS, validateInput } from "@earshot/edge";
import { ALL_SCOPES } from "@earshot/account/scopes";
import { type FieldError, isDomainError, newId } from "@earshot/platform";
import fc from "fast-check";
import { checkNewKey } from "../../account/src/domain/api-keys";
import { checkName, checkPassword } from "../../account/src/domain/users";
import { checkDashboardFields } from "../../project/src/domain/dashboard";
import { checkInvitationFields, checkRoleChange } from "../../project/src/domain/members";
import { checkPageChoice } from "../../integration/src/domain/linkedin-select";
import { checkProjectFields, SOURCES } from "../../project/src/domain/project-rules";

// The edge's request validation and the owning service's own check judge every field alike: same
// verdict, same field paths, same messages, on random and boundary inputs. Both build on one field
// module per domain; what this guards is everything around it (defaults, optional wrappers, gRPC's
// empty strings, dates crossing as timestamps).

const edgeErrors = (opName: string, body: Record<string, unknown>, path: Record<string, unknown> = {}): FieldError[] => {
  const op = OPERATIONS.find((o) => o.name === opName);
  if (!op) throw new Error(`no operation ${opName}`);
  try {
    validateInput(op, { path, query: {}, body });
    return [];
  } catch (err) {
    if (isDomainError(err)) return err.errors;
    throw err;
  }
};

const ZALGO = `a${"\u0301".repeat(9)}`;
/** Random text of every kind, and the values at and just past a limit of `max` characters. */
const text = (max: number) =>
  fc.oneof(
    fc.string({ unit: "grapheme", maxLength: max + 3 }),
    fc.string({ unit: "binary", maxLength: max + 3 }),
    fc.string({ unit: "grapheme-ascii", maxLength: 12 }).map((s) => ` ${s}\t`),
    fc.constantFrom("", " ", "\u3000", "a".repeat(max), "a".repeat(max + 1), "📡".repeat(max), "📡".repeat(max + 1), "🇫🇷".repeat(max), ` ${"a".repeat(max)} `, ZALGO, "x".repeat(20 * max)),
  );

const PROPERTY = { seed: 20261123, numRuns: 150 };
// Ids of their fields' shape: the path is not what these properties compare.
const PROJECT_PATH = { projectId: newId("prj") };

describe("edge and service agree on every field", () => {
  it("project name, description, icon and color", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("name", "description", "icon", "color"),
        fc.oneof(text(100), text(500), text(10), fc.stringMatching(/^#?[0-9a-fA-Fg]{5,7}$/)),
        (field, value) => {
          expect(edgeErrors("update_project", { [field]: value }, PROJECT_PATH)).toEqual(checkProjectFields({ [field]: value }));
        },
      ),
      PROPERTY,
    );
  });

  it("project sources", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...SOURCES, "myspace", ""), { maxLength: 6 }), (sources) => {
        expect(edgeErrors("update_project", { enabledSources: sources }, PROJECT_PATH)).toEqual(checkProjectFields({ enabledSources: sources }));
      }),
      PROPERTY,
    );
  });

  it("digest time zone", () => {
    const zones = Intl.supportedValuesOf("timeZone");
    const zone = fc.oneof(
      fc.constantFrom(...zones),
      fc.constantFrom(...zones).map((z) => z.toLowerCase()),
      fc.constantFrom("UTC", "utc", "Etc/UTC", "GMT", "EST", "Asia/Kolkata", "Europe/Kyiv", "US/Eastern", "Mars/Olympus_Mons", "Europe/Paris ", ""),
      text(64),
    );
    fc.assert(
      fc.property(zone, (value) => {
        expect(edgeErrors("update_project", { digestTimezone: value }, PROJECT_PATH)).toEqual(checkProjectFields({ digestTimezone: value }));
      }),
      PROPERTY,
    );
  });

  it("public dashboard description and website", () => {
    const url = fc.oneof(fc.webUrl(), fc.constantFrom("", "ftp://example.com", "https://", "http://exa mple.com", `https://e.com/${"a".repeat(2040)}`), text(40));
    fc.assert(
      fc.property(fc.option(text(500), { nil: undefined }), fc.option(url, { nil: undefined }), (description, websiteUrl) => {
        const body = { enabled: true, ...(description !== undefined ? { description } : {}), ...(websiteUrl !== undefined ? { websiteUrl } : {}) };
        expect(edgeErrors("set_public_dashboard", body, PROJECT_PATH)).toEqual(checkDashboardFields({ description, websiteUrl }));
      }),
      PROPERTY,
    );
  });

  it("member email and role", () => {
    const email = fc.oneof(fc.emailAddress(), fc.emailAddress().map((e) => ` ${e.toUpperCase()} `), fc.constantFrom("ana@例え.jp", "a@b", "a b@c.de", `${"é".repeat(126)}@example.com`, ""), text(30));
    const role = fc.constantFrom("viewer", "editor", "owner", "");
    fc.assert(
      fc.property(email, role, (address, r) => {
        // An absent role is gRPC's empty string: both sides take the default.
        const body = { email: address, ...(r ? { role: r } : {}) };
        expect(edgeErrors("invite_project_member", body, PROJECT_PATH)).toEqual(checkInvitationFields({ email: address, role: r }));
        if (r) expect(edgeErrors("update_project_member", { role: r }, { ...PROJECT_PATH, memberId: newId("mbr") })).toEqual(checkRoleChange(r));
      }),
      PROPERTY,
    );
  });

  it("LinkedIn Page choice", () => {
    const urn = fc.oneof(fc.integer({ min: 1 }).map((n) => `urn:li:organization:${n}`), text(200));
    fc.assert(
      fc.property(urn, (organizationUrn) => {
        expect(edgeErrors("select_linkedin_page", { ...PROJECT_PATH, organizationUrn })).toEqual(checkPageChoice({ organizationUrn }));
      }),
      PROPERTY,
    );
  });

  it("account display name", () => {
    fc.assert(
      fc.property(text(100), (name) => {
        expect(edgeErrors("update_account", { name })).toEqual(checkName(name));
      }),
      PROPERTY,
    );
  });

  it("API key name, scopes and expiry", () => {
    const DAY = 86_400_000;
    const now = Date.now();
    // Instants at least a day from now, so the two clocks read moments apart can never disagree.
    const expiry = fc.oneof(fc.integer({ min: 1, max: 3650 }), fc.integer({ min: -3650, max: -1 })).map((days) => new Date(now + days * DAY));
    fc.assert(
      fc.property(
        text(100),
        fc.array(fc.constantFrom(...ALL_SCOPES, "projects:admin"), { maxLength: ALL_SCOPES.length + 2 }),
        fc.option(expiry, { nil: undefined }),
        (name, scopes, expiresAt) => {
          const body = { name, scopes, ...(expiresAt ? { expiresAt: expiresAt.toISOString() } : {}) };
          expect(edgeErrors("create_api_key", body)).toEqual(checkNewKey({ name, scopes, expiresAt }, new Date()));
        },
      ),
      PROPERTY,
    );
  });
});

describe("account passwords", () => {
  it("counts a password in characters as typed, white space included", () => {
    expect(checkPassword("🔑".repeat(8))).toEqual([]);
    expect(checkPassword("🔑".repeat(150))).toEqual([]);
    expect(checkPassword("  pass  ")).toEqual([]);
    expect(checkPassword("🔑".repeat(7)).map((e) => e.path)).toEqual(["password"]);
    expect(checkPassword("🔑".repeat(201))).toEqual([{ path: "password", message: "must be 8 to 200 characters" }]);
  });
});
