// A chat endpoint's URL is its secret (whoever has a Slack or Discord webhook URL can post to the channel):
// whole in the answer to its create (and to an update that sets it), masked everywhere after. The mask keeps
// what tells endpoints apart without letting anyone post: the scheme and host, and the path's last four
// characters when the path is long enough that four give nothing away.

const SHOWN_TAIL = 4;
const LONG_ENOUGH = 16;

/** `https://hooks.slack.com/…Xy12` for `https://hooks.slack.com/services/T0/B0/…Xy12`. */
export const maskedUrl = (url: string): string => {
  if (!URL.canParse(url)) return "…";
  const parsed = new URL(url);
  const rest = url.slice(parsed.origin.length);
  return `${parsed.origin}/…${rest.length >= LONG_ENOUGH ? rest.slice(-SHOWN_TAIL) : ""}`;
};
