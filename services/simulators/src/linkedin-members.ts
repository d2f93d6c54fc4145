// The simulated LinkedIn members who can sign in on the authorization page, and the Pages
// (organizations) each administers. Tests pick a member by `id` (the form's `member` field).

export interface SimLinkedinOrganization {
  id: number;
  urn: string;
  localizedName: string;
  vanityName: string;
}

export interface SimLinkedinMember {
  /** The value of the authorization form's `member` field. */
  id: string;
  personUrn: string;
  name: string;
  /** Organization URNs the member administers. */
  administers: string[];
}

const organization = (id: number, localizedName: string, vanityName: string): SimLinkedinOrganization => ({ id, urn: `urn:li:organization:${id}`, localizedName, vanityName });

export const SIM_LINKEDIN_ORGANIZATIONS: readonly SimLinkedinOrganization[] = [organization(1001, "Acme Corp", "acme-corp"), organization(1002, "Acme Labs", "acme-labs"), organization(2001, "Globex", "globex")];

export const SIM_LINKEDIN_MEMBERS: readonly SimLinkedinMember[] = [
  { id: "member-a", personUrn: "urn:li:person:SimAvery01", name: "Avery Admin (Acme Corp, Acme Labs)", administers: ["urn:li:organization:1001", "urn:li:organization:1002"] },
  { id: "member-b", personUrn: "urn:li:person:SimBlake02", name: "Blake Owner (Globex)", administers: ["urn:li:organization:2001"] },
];

export const organizationByUrn = (urn: string): SimLinkedinOrganization | undefined => SIM_LINKEDIN_ORGANIZATIONS.find((o) => o.urn === urn);
