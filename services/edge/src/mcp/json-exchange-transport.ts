import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage, MessageExtraInfo, RequestId } from "@modelcontextprotocol/sdk/types.js";

// The SDK `Transport` between one pooled MCP `Server` and the stateless POSTs it serves, one at a time:
// the route hands it a POST's messages (already parsed and checked) and gets back the responses to its
// requests, to write as JSON itself. The server stays connected to it from request to request, so
// nothing is set up or torn down per request; JSON-RPC ids of different clients never meet because a
// server takes a POST only once every response of the previous one has come back.
//
// What the server sends besides responses (progress or log notifications, requests to the client) has
// no stream to travel in a JSON answer, and is dropped, as the SDK's transport does in JSON mode.

export class JsonExchangeTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;

  /** The responses of the exchange under way, by request id (undefined until it comes). */
  private pending: Map<RequestId, JSONRPCMessage | undefined> | undefined;
  private unanswered = 0;
  private finish: (() => void) | undefined;

  async start(): Promise<void> {}

  async close(): Promise<void> {
    this.pending = undefined;
    this.finish = undefined;
    this.onclose?.();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const pending = this.pending;
    if (pending === undefined || "method" in message || !("id" in message) || message.id === undefined) return;
    if (!pending.has(message.id) || pending.get(message.id) !== undefined) return;
    pending.set(message.id, message);
    if (--this.unanswered === 0) this.finish?.();
  }

  /**
   * Hands `messages` to the server and resolves, once each request among them is answered, with the
   * responses in the order of the requests (none when there was no request).
   */
  exchange(messages: readonly JSONRPCMessage[], extra: MessageExtraInfo): Promise<JSONRPCMessage[]> {
    if (this.pending !== undefined) throw new Error("This transport is already serving a request.");
    const pending = new Map<RequestId, JSONRPCMessage | undefined>();
    for (const m of messages) if ("method" in m && "id" in m) pending.set(m.id, undefined);
    this.pending = pending;
    this.unanswered = pending.size;
    const answered = new Promise<JSONRPCMessage[]>((resolve) => {
      this.finish = () => {
        this.pending = undefined;
        this.finish = undefined;
        resolve([...pending.values()] as JSONRPCMessage[]);
      };
    });
    // The server may answer within the call (an unknown method): the map is in place before.
    for (const m of messages) this.onmessage?.(m, extra);
    if (pending.size === 0) this.finish?.();
    return answered;
  }
}
