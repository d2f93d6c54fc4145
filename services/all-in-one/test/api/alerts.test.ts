import { waitFor } from "@earshot/platform/testing";
import { simpleParser } from "mailparser";
import { type Harness, startHarness } from "./harness";
import { createProject, keywordWithMentions } from "./world";

// Alerts end to end: a new project has its Daily Digest rule; an editor's instant rule emails the workspace
// owner (through a real SMTP server) once a matching post is imported; `digest send` (the operators' call)
// emails the day's digest at once. The digest service ticks every 50 ms here.

describe("alerts through the whole system", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ EARSHOT_DIGEST_TICK_SECONDS: "0.05" });
  }, 60_000);
  afterAll(async () => h?.stop());

  it("emails the owner an instant alert an editor set up, and a digest sent by hand", async () => {
    const owner = await h.newActor();
    const projectId = await createProject(h, owner);
    const editor = await h.addMember(owner, projectId, "editor");
    const list = await h.call("list_alerts", { projectId }, owner.key);
    expect((list.body.data as Array<{ name: string }>).map((a) => a.name)).toEqual(["Daily Digest"]);

    const rule = await h.call("create_alert", { projectId, name: "Everything, now", instant: true }, editor.key);
    expect(rule.status).toBe(201);
    const mailFor = (subject: string) => h.mail.find((m) => m.to.includes(owner.email) && m.raw.includes(subject));
    const { keyword } = await keywordWithMentions(h, owner, projectId, 1);
    await waitFor(() => mailFor("Everything, now for ") !== undefined, 10_000);
    const instant = await simpleParser(mailFor("Everything, now for ")!.raw);
    expect(instant.to).toMatchObject({ value: [{ address: owner.email }] });
    expect(instant.text).toContain(`${keyword.value}: 1`);
    expect(instant.html).toContain("Open on");
    expect(h.mail.some((m) => m.to.includes(editor.email) && m.raw.includes("Everything, now"))).toBe(false);

    const res = await h.digest.sendDigest({ projectId, localDate: "" });
    expect(res.emailsSent).toBe(1);
    await waitFor(() => mailFor("[manual send] Daily Digest for ") !== undefined, 10_000);
  });
});
