// A keyword: declared and presented in the contract layer, the same for get_keyword and the `keyword.*` webhooks.
export { type Keyword, keywordSchema, presentKeyword } from "@earshot/contracts/resources";
