import { authorDisplay } from "./author";

// An author reads as a name, and a handle beside it only when it adds something, with one `@`.

describe("authorDisplay", () => {
  it.each([
    [{ name: "Ana", handle: "ana_dev" }, { name: "Ana", handle: "@ana_dev" }],
    [{ name: "Acme Fans", handle: "@acmefans" }, { name: "Acme Fans", handle: "@acmefans" }],
    // A YouTube commenter: the display name is the handle, with its @.
    [{ name: "@sim_viewer_10", handle: "@sim_viewer_10" }, { name: "@sim_viewer_10" }],
    // A YouTube video: the handle is the channel's title, the name again.
    [{ name: "Simulated channel 4", handle: "Simulated channel 4" }, { name: "Simulated channel 4" }],
    [{ name: "Bob", handle: "bob" }, { name: "Bob", handle: "@bob" }],
    [{ name: "bob", handle: "@@bob" }, { name: "bob" }],
    [{ handle: "@@sim_viewer_10" }, { name: "@sim_viewer_10" }],
    [{ name: "", handle: "bob" }, { name: "@bob" }],
    [{ name: "Ana" }, { name: "Ana" }],
    [{ name: " ", handle: " " }, { name: "" }],
    [{ name: "Channel", handle: "Some other title" }, { name: "Channel", handle: "Some other title" }],
  ])("shows %j as %j", (author, shown) => {
    expect(authorDisplay(author)).toEqual(shown);
  });
});
