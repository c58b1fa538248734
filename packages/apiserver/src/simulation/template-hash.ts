/**
 * The hash that names a workload's revision (a Deployment's `pod-template-hash`, a StatefulSet's
 * and DaemonSet's `controller-revision-hash`): FNV-1a (32 bit) of the template's canonical JSON plus
 * the collision count, written in apimachinery's safe alphabet as upstream writes it. The value is
 * stable for the same template; it is not byte-for-byte upstream's (which hashes Go's object dump).
 */
import { canonicalJson } from '../validation/canonical-json.js';

const safeAlphabet = 'bcdfghjklmnpqrstvwxz2456789';

/** The revision hash of `template` (10 characters or fewer). */
export function templateHash(template: unknown, collisionCount = 0): string {
  let hash = 0x811c9dc5;
  const text = `${canonicalJson(template)}${collisionCount > 0 ? `#${collisionCount}` : ''}`;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  // As apimachinery's SafeEncodeString: each decimal digit's character code picks a letter.
  return [...String(hash)].map((digit) => safeAlphabet[digit.charCodeAt(0) % safeAlphabet.length]).join('');
}
