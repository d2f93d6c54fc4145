import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { GrpcTls } from "../grpc/tls";

// Certificates for tests of mutual TLS, made by openssl in a temp dir: a CA and the certificates it signs,
// each valid for its name, localhost and 127.0.0.1, for both ends of a connection (serverAuth, clientAuth).

const openssl = (args: string[], cwd: string) => execFileSync("openssl", args, { cwd, stdio: "pipe" });

/** Writes `<caName>.crt/.key` and, per name, `<name>.crt/.key` signed by that CA. */
export const makeTestPki = (dir: string, caName: string, names: string[]): void => {
  openssl(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", `${caName}.key`, "-out", `${caName}.crt`, "-days", "1", "-subj", `/CN=${caName}`], dir);
  for (const name of names) {
    openssl(["req", "-newkey", "rsa:2048", "-nodes", "-keyout", `${name}.key`, "-out", `${name}.csr`, "-subj", `/CN=${name}`], dir);
    const ext = join(dir, `${name}.ext`);
    writeFileSync(ext, `subjectAltName=DNS:${name},DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\n`);
    openssl(["x509", "-req", "-in", `${name}.csr`, "-CA", `${caName}.crt`, "-CAkey", `${caName}.key`, "-CAcreateserial", "-out", `${name}.crt`, "-days", "1", "-extfile", ext], dir);
  }
};

/** The EARSHOT_GRPC_TLS_* settings of a process presenting `name`'s certificate. */
export const testTlsSettings = (dir: string, caName: string, name: string): Record<string, string> => ({
  EARSHOT_GRPC_TLS_CA_FILE: join(dir, `${caName}.crt`),
  EARSHOT_GRPC_TLS_CERT_FILE: join(dir, `${name}.crt`),
  EARSHOT_GRPC_TLS_KEY_FILE: join(dir, `${name}.key`),
});

/** The same certificates, read, as a client given them directly takes them. */
export const testTls = (dir: string, caName: string, name: string): GrpcTls => ({
  ca: readFileSync(join(dir, `${caName}.crt`)),
  cert: readFileSync(join(dir, `${name}.crt`)),
  key: readFileSync(join(dir, `${name}.key`)),
});
