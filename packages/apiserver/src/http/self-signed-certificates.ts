/**
 * A self-signed CA and a serving certificate for `127.0.0.1`/`localhost`, made with node:crypto
 * alone (ECDSA P-256, SHA-256), as envtest makes its own: clients verify the server through the
 * CA written into the kubeconfig, over the same TLS path as against a real cluster.
 *
 * Node has no certificate builder, so the X.509 structure is DER-encoded here: only the few
 * ASN.1 types a certificate needs (SEQUENCE, SET, INTEGER, OID, strings, times, explicit tags).
 */
import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { isIP } from 'node:net';

/** PEM texts of a CA and of a serving certificate signed by it. */
export interface ServingCertificates {
  /** The CA certificate (PEM): what clients trust (`certificate-authority-data`). */
  readonly caCertificate: string;
  /** The serving certificate (PEM). */
  readonly certificate: string;
  /** The serving certificate's private key (PEM, PKCS#8). */
  readonly privateKey: string;
}

function der(tag: number, content: Buffer): Buffer {
  const length = content.length;
  let header: Buffer;
  if (length < 0x80) header = Buffer.from([tag, length]);
  else {
    const bytes: number[] = [];
    for (let n = length; n > 0; n >>= 8) bytes.unshift(n & 0xff);
    header = Buffer.from([tag, 0x80 | bytes.length, ...bytes]);
  }
  return Buffer.concat([header, content]);
}

const sequence = (...items: Buffer[]): Buffer => der(0x30, Buffer.concat(items));
const set = (...items: Buffer[]): Buffer => der(0x31, Buffer.concat(items));
const explicit = (n: number, content: Buffer): Buffer => der(0xa0 + n, content);
const octetString = (content: Buffer): Buffer => der(0x04, content);
const utf8String = (text: string): Buffer => der(0x0c, Buffer.from(text, 'utf8'));
const bitString = (content: Buffer, unusedBits = 0): Buffer => der(0x03, Buffer.concat([Buffer.from([unusedBits]), content]));
const booleanTrue = der(0x01, Buffer.from([0xff]));

function integer(value: Buffer): Buffer {
  // A positive INTEGER: no leading zero bytes beyond one that keeps the sign bit clear.
  let start = 0;
  while (start < value.length - 1 && value[start] === 0) start++;
  const trimmed = value.subarray(start);
  return der(0x02, (trimmed[0] as number) & 0x80 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed);
}

function oid(text: string): Buffer {
  const parts = text.split('.').map(Number);
  const bytes: number[] = [40 * (parts[0] as number) + (parts[1] as number)];
  for (const part of parts.slice(2)) {
    const chunk: number[] = [part & 0x7f];
    for (let n = part >> 7; n > 0; n >>= 7) chunk.unshift((n & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return der(0x06, Buffer.from(bytes));
}

function time(date: Date): Buffer {
  // UTCTime (YYMMDDhhmmssZ) until 2049, GeneralizedTime after, as RFC 5280 requires.
  const iso = date.toISOString();
  const compact = `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}Z`;
  return date.getUTCFullYear() < 2050 ? der(0x17, Buffer.from(compact.slice(2))) : der(0x18, Buffer.from(compact));
}

const ecdsaWithSha256 = sequence(oid('1.2.840.10045.4.3.2'));
const name = (commonName: string): Buffer => sequence(set(sequence(oid('2.5.4.3'), utf8String(commonName))));

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return critical ? sequence(oid(id), booleanTrue, octetString(value)) : sequence(oid(id), octetString(value));
}

/** The key identifier of RFC 5280 (method 1): SHA-1 of the subjectPublicKey bits. */
function keyIdentifier(spki: Buffer): Buffer {
  // For a P-256 key the SPKI is a 2-element SEQUENCE whose BIT STRING is the last 66 bytes (tag, length, unused-bits byte, point).
  return createHash('sha1').update(spki.subarray(spki.length - 65)).digest();
}

interface CertificateSpec {
  readonly subject: string;
  readonly issuer: string;
  readonly publicKey: KeyObject;
  readonly signingKey: KeyObject;
  readonly issuerKeyId: Buffer;
  readonly ca: boolean;
  readonly altNames: readonly string[];
  readonly notBefore: Date;
  readonly notAfter: Date;
}

function certificate(spec: CertificateSpec): string {
  const spki = spec.publicKey.export({ type: 'spki', format: 'der' });
  const extensions: Buffer[] = [
    extension('2.5.29.19', true, spec.ca ? sequence(booleanTrue) : sequence()),
    // keyUsage: CA keyCertSign + cRLSign + digitalSignature; server digitalSignature.
    extension('2.5.29.15', true, spec.ca ? bitString(Buffer.from([0x86]), 1) : bitString(Buffer.from([0x80]), 7)),
    extension('2.5.29.14', false, octetString(keyIdentifier(spki))),
    extension('2.5.29.35', false, sequence(der(0x80, spec.issuerKeyId))),
  ];
  if (!spec.ca) {
    extensions.push(extension('2.5.29.37', false, sequence(oid('1.3.6.1.5.5.7.3.1'))));
    const names = spec.altNames.map((n) => {
      if (isIP(n) === 4) return der(0x87, Buffer.from(n.split('.').map(Number)));
      return der(0x82, Buffer.from(n, 'ascii'));
    });
    extensions.push(extension('2.5.29.17', false, sequence(...names)));
  }
  const serial = randomBytes(16);
  const tbs = sequence(
    explicit(0, integer(Buffer.from([2]))),
    integer(serial),
    ecdsaWithSha256,
    name(spec.issuer),
    sequence(time(spec.notBefore), time(spec.notAfter)),
    name(spec.subject),
    spki,
    explicit(3, sequence(...extensions)),
  );
  const signature = sign('sha256', tbs, { key: spec.signingKey, dsaEncoding: 'der' });
  const certDer = sequence(tbs, ecdsaWithSha256, bitString(signature));
  const base64 = certDer.toString('base64').replace(/(.{64})/g, '$1\n').replace(/\n$/, '');
  return `-----BEGIN CERTIFICATE-----\n${base64}\n-----END CERTIFICATE-----\n`;
}

/**
 * Makes a CA and a serving certificate for `hosts` (IP addresses and DNS names; 127.0.0.1 and
 * localhost are always included), valid from an hour ago for `validDays` days.
 */
export function makeServingCertificates(options: { hosts?: readonly string[]; validDays?: number; now?: Date } = {}): ServingCertificates {
  const now = options.now ?? new Date();
  const notBefore = new Date(now.getTime() - 3600_000);
  const notAfter = new Date(now.getTime() + (options.validDays ?? 365) * 86400_000);
  const ca = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const server = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const caKeyId = keyIdentifier(ca.publicKey.export({ type: 'spki', format: 'der' }));
  const caCertificate = certificate({ subject: 'kubeloop-ca', issuer: 'kubeloop-ca', publicKey: ca.publicKey, signingKey: ca.privateKey, issuerKeyId: caKeyId, ca: true, altNames: [], notBefore, notAfter });
  const altNames = [...new Set(['127.0.0.1', 'localhost', ...(options.hosts ?? [])])];
  const servingCertificate = certificate({ subject: 'kubeloop-apiserver', issuer: 'kubeloop-ca', publicKey: server.publicKey, signingKey: ca.privateKey, issuerKeyId: caKeyId, ca: false, altNames, notBefore, notAfter });
  return { caCertificate, certificate: servingCertificate, privateKey: server.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
}
