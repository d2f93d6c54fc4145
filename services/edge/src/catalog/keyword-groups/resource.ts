// A keyword group: declared and presented in the contract layer, the same for list_keyword_groups and the `keyword_group.*` webhooks.
export { type KeywordGroup, keywordGroupSchema, presentKeywordGroup } from "@earshot/contracts/resources";
