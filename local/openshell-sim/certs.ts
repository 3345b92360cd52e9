/**
 * A throwaway PKI for the simulator, made at start and never written to the repository: one CA, a
 * server certificate for 127.0.0.1/::1/localhost and a client certificate, so the default local
 * path is mTLS like a real gateway's. Keys come from node:crypto (fast); node-forge only builds and
 * signs the X.509 structures, which node:crypto cannot.
 */
import { generateKeyPair, randomBytes } from "node:crypto";
import { promisify } from "node:util";
import forge from "node-forge";

export interface SimPki {
  caPem: string;
  serverCertPem: string;
  serverKeyPem: string;
  clientCertPem: string;
  clientKeyPem: string;
}

const DAY_MS = 86_400_000;

type Keys = Awaited<ReturnType<typeof rsaKeys>>;

async function rsaKeys() {
  const { publicKey, privateKey } = await promisify(generateKeyPair)("rsa", { modulusLength: 2048 });
  const keyPem = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
  return {
    keyPem,
    publicKey: forge.pki.publicKeyFromPem(publicKey.export({ type: "spki", format: "pem" }).toString()),
    privateKey: forge.pki.privateKeyFromPem(keyPem),
  };
}

// A positive serial number (high bit clear).
const serial = () => `0${randomBytes(8).toString("hex").slice(1)}`;

export async function createSimPki(now: Date = new Date()): Promise<SimPki> {
  const notBefore = new Date(now.getTime() - DAY_MS);
  const notAfter = new Date(now.getTime() + 7 * DAY_MS);
  const make = (subject: string, keys: Keys) => {
    const cert = forge.pki.createCertificate();
    cert.serialNumber = serial();
    cert.validity.notBefore = notBefore;
    cert.validity.notAfter = notAfter;
    cert.publicKey = keys.publicKey;
    cert.setSubject([{ name: "commonName", value: subject }]);
    return cert;
  };
  const [caKeys, serverKeys, clientKeys] = await Promise.all([rsaKeys(), rsaKeys(), rsaKeys()]);
  const ca = make("runtime-logs local OpenShell CA", caKeys);
  ca.setIssuer(ca.subject.attributes);
  ca.setExtensions([
    { name: "basicConstraints", cA: true, pathLenConstraint: 0, critical: true },
    { name: "keyUsage", keyCertSign: true, cRLSign: true, critical: true },
    { name: "subjectKeyIdentifier" },
  ]);
  ca.sign(caKeys.privateKey, forge.md.sha256.create());

  const leaf = (subject: string, server: boolean, keys: Keys) => {
    const cert = make(subject, keys);
    cert.setIssuer(ca.subject.attributes);
    cert.setExtensions([
      { name: "basicConstraints", cA: false, critical: true },
      { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
      { name: "extKeyUsage", serverAuth: server, clientAuth: !server },
      ...(server
        ? [
            {
              name: "subjectAltName",
              altNames: [
                { type: 7, ip: "127.0.0.1" },
                { type: 7, ip: "::1" },
                { type: 2, value: "localhost" },
              ],
            },
          ]
        : []),
    ]);
    cert.sign(caKeys.privateKey, forge.md.sha256.create());
    return { certPem: forge.pki.certificateToPem(cert), keyPem: keys.keyPem };
  };
  const server = leaf("openshell-sim", true, serverKeys);
  const client = leaf("runtime-logs", false, clientKeys);
  return {
    caPem: forge.pki.certificateToPem(ca),
    serverCertPem: server.certPem,
    serverKeyPem: server.keyPem,
    clientCertPem: client.certPem,
    clientKeyPem: client.keyPem,
  };
}

let shared: Promise<SimPki> | undefined;
/** One PKI per process: every simulator started in it (tests, the local stack) shares it. */
export function processPki(): Promise<SimPki> {
  shared ??= createSimPki();
  return shared;
}
