import type { LinkedinComment, LinkedinPost } from "../linkedin/linkedin-wire";
import type { CollectedPost } from "./collector";

// LinkedIn posts and comments as Posts. LinkedIn links a post by its URN
// (`https://www.linkedin.com/feed/update/<urn>/`) and a comment as its post's link naming the comment
// (`https://www.linkedin.com/feed/update/<post urn>?commentUrn=<comment urn, encoded>`, the form of
// LinkedIn's own "copy link to comment"); a member's handle is the id inside the member's URN (the API
// gives no display name for members who are not connections of the Page).

export const linkedinUrl = (urn: string) => `https://www.linkedin.com/feed/update/${urn}/`;

export const linkedinCommentUrl = (postUrn: string, commentUrn: string) => `https://www.linkedin.com/feed/update/${postUrn}?commentUrn=${encodeURIComponent(commentUrn)}`;

const idOfUrn = (urn: string) => urn.slice(urn.lastIndexOf(":") + 1) || urn;

const authorOf = (urn: string) => ({ id: urn, handle: idOfUrn(urn), name: idOfUrn(urn) });

export const mapLinkedinPost = (post: LinkedinPost, fallbackTimeMs: number): CollectedPost => ({
  source: "linkedin",
  sourceId: post.id,
  url: linkedinUrl(post.id),
  text: post.commentary,
  author: authorOf(post.author),
  publishedAt: new Date(post.publishedAt ?? post.createdAt ?? fallbackTimeMs).toISOString(),
});

export const mapLinkedinComment = (comment: LinkedinComment, commentUrn: string, postUrn: string): CollectedPost => ({
  source: "linkedin",
  sourceId: commentUrn,
  url: linkedinCommentUrl(postUrn, commentUrn),
  text: comment.message.text,
  author: authorOf(comment.actor),
  publishedAt: new Date(comment.created.time).toISOString(),
  parentId: postUrn,
});

/** The comment id inside a comment URN, `urn:li:comment:(urn:li:share:1,42)` -> `42`. */
export const commentIdOf = (urn: string): string | undefined => /^urn:li:comment:\(.+,([^,()]+)\)$/.exec(urn)?.[1];
