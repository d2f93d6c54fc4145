// How a post's author reads in what people are shown (emails, the dashboard), one rule for every service
// that shows one.

/**
 * The display name, and the handle beside it only when it adds something. Sources hand handles over in
 * several shapes: with their `@` (YouTube commenters, `@sim_viewer_10`), without it (X, Reddit), or as a
 * channel's title that is the name again (YouTube videos); so the handle gets exactly one `@` (none when it
 * holds spaces: a title, not a handle), and is left out when it is the name once the `@` is set aside (a
 * different case is a different text: `Bob (@bob)`). With no name the handle stands in for it; with
 * neither, `name` is "".
 */
export const authorDisplay = (author: { name?: string | undefined; handle?: string | undefined }): { name: string; handle?: string } => {
  const bare = (author.handle ?? "").trim().replace(/^@+/, "");
  const handle = bare === "" ? "" : /\s/.test(bare) ? bare : `@${bare}`;
  const name = (author.name ?? "").trim();
  if (name === "") return { name: handle };
  if (handle === "" || name.replace(/^@+/, "") === bare) return { name };
  return { name, handle };
};
