// Prints a fresh OAuth signing key file for a Kubernetes Secret (after `make build`):
//   node deploy/generate-oauth-keys.js > oauth-signing-keys.json
//   kubectl create secret generic earshot-oauth-keys --from-file=oauth-signing-keys.json
// To rotate, put a new key first in "keys", keep the old one for 15 minutes (the access-token lifetime), then drop it.
"use strict";
const { generateSigningKey } = require("../services/edge/dist/oauth/signing-keys.js");

process.stdout.write(`${JSON.stringify({ keys: [generateSigningKey()] }, null, 2)}\n`);
