import { z } from "zod";

// LinkedIn's answers as Earshot reads them (reference/protocols.md "LinkedIn Community Management API").

export const linkedinTokenSchema = z.object({
  access_token: z.string().min(1),
  expires_in: z.number().int().positive(),
  refresh_token: z.string().min(1).optional(),
  refresh_token_expires_in: z.number().int().min(0).optional(),
  scope: z.string().default(""),
});

const paging = z.object({ start: z.number().int().min(0).optional(), count: z.number().int().min(0).optional(), total: z.number().int().min(0).optional() }).optional();

export const linkedinCollectionSchema = z.object({ elements: z.array(z.unknown()), paging });
export type LinkedinCollection = z.infer<typeof linkedinCollectionSchema>;

export const linkedinAclSchema = z.object({ role: z.string(), state: z.string(), organization: z.string().regex(/^urn:li:organization:\d+$/) });

export const linkedinOrganizationSchema = z.object({ id: z.union([z.number(), z.string()]), localizedName: z.string(), vanityName: z.string().optional() });

export const linkedinNotificationSchema = z.object({
  action: z.enum(["SHARE_MENTION", "COMMENT"]),
  sourcePost: z.string().regex(/^urn:li:[A-Za-z]+:/),
  generatedActivity: z.string().regex(/^urn:li:[A-Za-z]+:/).optional(),
  lastModifiedAt: z.number().int().min(0),
});
export type LinkedinNotification = z.infer<typeof linkedinNotificationSchema>;

export const linkedinPostSchema = z.object({
  id: z.string().min(1),
  author: z.string().min(1),
  commentary: z.string().default(""),
  createdAt: z.number().int().min(0).optional(),
  publishedAt: z.number().int().min(0).optional(),
  lifecycleState: z.string().optional(),
});
export type LinkedinPost = z.infer<typeof linkedinPostSchema>;

export const linkedinCommentSchema = z.object({
  id: z.string().min(1),
  commentUrn: z.string().optional(),
  actor: z.string().min(1),
  message: z.object({ text: z.string() }),
  created: z.object({ time: z.number().int().min(0) }),
  object: z.string().optional(),
});
export type LinkedinComment = z.infer<typeof linkedinCommentSchema>;
