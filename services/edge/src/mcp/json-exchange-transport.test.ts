import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { JsonExchangeTransport } from "./json-exchange-transport";

// The transport between a pooled MCP server and the POSTs it serves: what comes back from one exchange.

const request = (id: number, method = "ping"): JSONRPCMessage => ({ jsonrpc: "2.0", id, method });
const answer = (id: number): JSONRPCMessage => ({ jsonrpc: "2.0", id, result: { id } });

describe("an exchange of the JSON transport", () => {
  it("resolves with the responses in the order of the requests, whatever order they came back in", async () => {
    const transport = new JsonExchangeTransport();
    const received: JSONRPCMessage[] = [];
    transport.onmessage = (m) => received.push(m);
    const exchange = transport.exchange([request(1), { jsonrpc: "2.0", method: "notifications/initialized" }, request(2)], {});
    expect(received).toHaveLength(3);
    await transport.send(answer(2));
    await transport.send(answer(1));
    await expect(exchange).resolves.toEqual([answer(1), answer(2)]);
  });

  it("leaves out what the server sends besides the responses, and responses to no request of the exchange", async () => {
    const transport = new JsonExchangeTransport();
    const exchange = transport.exchange([request(1)], {});
    await transport.send({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 1, progress: 1 } });
    await transport.send({ jsonrpc: "2.0", id: 99, method: "sampling/createMessage" });
    await transport.send(answer(7));
    await transport.send(answer(1));
    await transport.send({ jsonrpc: "2.0", id: 1, error: { code: -32603, message: "late second answer" } });
    await expect(exchange).resolves.toEqual([answer(1)]);
  });

  it("resolves at once with nothing for notifications alone, and takes the next exchange after", async () => {
    const transport = new JsonExchangeTransport();
    await expect(transport.exchange([{ jsonrpc: "2.0", method: "notifications/initialized" }], {})).resolves.toEqual([]);
    const next = transport.exchange([request(1)], {});
    expect(() => transport.exchange([request(2)], {})).toThrow(/already serving/);
    await transport.send(answer(1));
    await expect(next).resolves.toEqual([answer(1)]);
  });

  it("takes an answer given while the message is being handed over (a method the server does not know)", async () => {
    const transport = new JsonExchangeTransport();
    transport.onmessage = (m) => void transport.send({ jsonrpc: "2.0", id: (m as { id: number }).id, error: { code: -32601, message: "Method not found" } });
    await expect(transport.exchange([request(4, "resources/list")], {})).resolves.toEqual([{ jsonrpc: "2.0", id: 4, error: { code: -32601, message: "Method not found" } }]);
  });
});
