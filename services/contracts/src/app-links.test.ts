import { appLinks } from "./app-links";

// The web app's page addresses every email links to: the edge serves exactly these (services/edge/src/web).

describe("appLinks", () => {
  it("names the inbox, a mention, an alert, a webhook endpoint and the members page under /app, ids escaped", () => {
    const links = appLinks("https://earshot.example.com/");
    expect(links.project("prj_1")).toBe("https://earshot.example.com/app/projects/prj_1");
    expect(links.mention("prj_1", "men_2")).toBe("https://earshot.example.com/app/projects/prj_1/mentions/men_2");
    expect(links.alert("prj_1", "alr_3")).toBe("https://earshot.example.com/app/projects/prj_1/alerts/alr_3");
    expect(links.webhook("prj_1", "whk_4")).toBe("https://earshot.example.com/app/projects/prj_1/webhooks/whk_4");
    expect(links.members("prj_1")).toBe("https://earshot.example.com/app/projects/prj_1/members");
    expect(links.sources("prj_1")).toBe("https://earshot.example.com/app/projects/prj_1/sources");
    expect(links.unsubscribe("u1.abc-_.def")).toBe("https://earshot.example.com/app/unsubscribe/u1.abc-_.def");
    expect(links.mention("prj/../x", "a b")).toBe("https://earshot.example.com/app/projects/prj%2F..%2Fx/mentions/a%20b");
  });
});
