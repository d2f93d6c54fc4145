import { readFileSync } from "node:fs";
import { type ChannelCredentials, credentials, ServerCredentials } from "@grpc/grpc-js";

// Optional mutual TLS between Earshot's processes (EARSHOT_GRPC_TLS_*): every server requires a client
// certificate signed by the CA, and every client presents its own and checks the server's. Off by default
// (the embedded default and clusters that rely on NetworkPolicies alone). The files come from a Secret or
// cert-manager (ca.crt, tls.crt, tls.key); they are read once at start.

export interface GrpcTls {
  ca: Buffer;
  cert: Buffer;
  key: Buffer;
  /** The name the servers' certificates carry, when it is not the host dialled (EARSHOT_GRPC_TLS_SERVER_NAME). */
  serverName?: string;
}

export interface GrpcTlsSettings {
  EARSHOT_GRPC_TLS_CA_FILE?: string | undefined;
  EARSHOT_GRPC_TLS_CERT_FILE?: string | undefined;
  EARSHOT_GRPC_TLS_KEY_FILE?: string | undefined;
  EARSHOT_GRPC_TLS_SERVER_NAME?: string | undefined;
}

const TLS_FILES = ["EARSHOT_GRPC_TLS_CA_FILE", "EARSHOT_GRPC_TLS_CERT_FILE", "EARSHOT_GRPC_TLS_KEY_FILE"] as const;

/** What is wrong with the TLS settings: all three files or none. */
export const grpcTlsProblems = (config: GrpcTlsSettings): string[] => {
  const set = TLS_FILES.filter((name) => config[name]);
  if (set.length === 0 || set.length === TLS_FILES.length) return [];
  return TLS_FILES.filter((name) => !config[name]).map((name) => `${name}: is required with ${set.join(" and ")} (mutual TLS needs the CA, a certificate and its key)`);
};

/** The certificates the settings name, read; undefined when TLS is off. */
export const grpcTlsFromSettings = (config: GrpcTlsSettings): GrpcTls | undefined => {
  const { EARSHOT_GRPC_TLS_CA_FILE: ca, EARSHOT_GRPC_TLS_CERT_FILE: cert, EARSHOT_GRPC_TLS_KEY_FILE: key } = config;
  if (!ca || !cert || !key) return undefined;
  return {
    ca: readFileSync(ca),
    cert: readFileSync(cert),
    key: readFileSync(key),
    ...(config.EARSHOT_GRPC_TLS_SERVER_NAME ? { serverName: config.EARSHOT_GRPC_TLS_SERVER_NAME } : {}),
  };
};

/** A server's credentials: plaintext without TLS, else TLS requiring a client certificate the CA signed. */
export const grpcServerCredentials = (tls: GrpcTls | undefined): ServerCredentials =>
  tls ? ServerCredentials.createSsl(tls.ca, [{ cert_chain: tls.cert, private_key: tls.key }], true) : ServerCredentials.createInsecure();

/** A client's credentials: plaintext without TLS, else TLS presenting its certificate and checking the server's. */
export const grpcChannelCredentials = (tls: GrpcTls | undefined): ChannelCredentials =>
  tls ? credentials.createSsl(tls.ca, tls.key, tls.cert) : credentials.createInsecure();

/** Channel options TLS needs: the name to check on the server's certificate, when set. */
export const grpcTlsChannelOptions = (tls: GrpcTls | undefined): Record<string, string> =>
  tls?.serverName ? { "grpc.ssl_target_name_override": tls.serverName, "grpc.default_authority": tls.serverName } : {};
