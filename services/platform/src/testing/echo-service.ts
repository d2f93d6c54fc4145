import {
  type CallOptions,
  type ChannelCredentials,
  type ClientOptions,
  type ClientUnaryCall,
  makeGenericClientConstructor,
  type Metadata,
  type ServiceDefinition,
  type ServiceError,
} from "@grpc/grpc-js";
import { DomainError } from "../errors";
import type { GrpcServiceRegistration } from "../grpc/server";

// A hand-written gRPC service with JSON messages, for tests of the transport (metrics, TLS) that need a
// real call without any domain proto: Echo answers its value, or refuses "missing" with NOT_FOUND.

export interface EchoMessage {
  value: string;
}

const json = {
  requestSerialize: (v: EchoMessage) => Buffer.from(JSON.stringify(v)),
  requestDeserialize: (b: Buffer) => JSON.parse(b.toString()) as EchoMessage,
  responseSerialize: (v: EchoMessage) => Buffer.from(JSON.stringify(v)),
  responseDeserialize: (b: Buffer) => JSON.parse(b.toString()) as EchoMessage,
};

export const ECHO_METHOD_PATH = "/test.v1.EchoService/Echo";

const definition = {
  echo: { path: ECHO_METHOD_PATH, requestStream: false, responseStream: false, ...json },
} as unknown as ServiceDefinition;

export const echoService: GrpcServiceRegistration<{ echo: unknown }> = {
  name: "test.v1.EchoService",
  definition,
  handlers: {
    echo: async (request: EchoMessage) => {
      if (request.value === "missing") throw new DomainError("not_found", "Nothing to echo.");
      return { value: request.value };
    },
  } as never,
};

interface EchoClientShape {
  echo(request: EchoMessage, metadata: Metadata, options: Partial<CallOptions>, callback: (error: ServiceError | null, response: EchoMessage) => void): ClientUnaryCall;
}

/** Its client, shaped like a ts-proto generated one (what createGrpcClient takes). */
export const EchoClient = makeGenericClientConstructor(definition, "EchoService") as unknown as {
  new (address: string, credentials: ChannelCredentials, options?: Partial<ClientOptions>): EchoClientShape;
  service: Record<string, unknown>;
};
