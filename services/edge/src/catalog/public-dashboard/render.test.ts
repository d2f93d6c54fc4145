import { mentionAuthor } from "./render";

// A public dashboard's mention names its author once: the name, linked to the profile, and the handle
// beside it only when it is not the name again, with one @.

describe("a dashboard mention's author", () => {
  it("shows the name and the handle with one @, the name linked to the profile", () => {
    expect(mentionAuthor({ name: "Ana", handle: "ana_dev", url: "https://x.com/ana_dev" })).toBe(
      '<span class="m-author"><a href="https://x.com/ana_dev" rel="noopener noreferrer nofollow ugc" target="_blank">Ana</a> <span class="m-handle">@ana_dev</span></span>',
    );
  });

  it.each([
    // A YouTube commenter, named by its @handle.
    [{ name: "@sim_viewer_10", handle: "@sim_viewer_10" }, '<span class="m-author">@sim_viewer_10</span>'],
    // A YouTube video: the handle is the channel's title, the name again.
    [{ name: "Simulated channel 4", handle: "Simulated channel 4" }, '<span class="m-author">Simulated channel 4</span>'],
    [{ name: "", handle: "@@bob" }, '<span class="m-author">@bob</span>'],
    [{ name: "", handle: "" }, '<span class="m-author">Someone</span>'],
    [{ name: "<b>Eve</b>", handle: "eve" }, '<span class="m-author">&lt;b&gt;Eve&lt;/b&gt; <span class="m-handle">@eve</span></span>'],
  ])("shows %j without repeating it", (author, html) => {
    expect(mentionAuthor(author)).toBe(html);
  });
});
