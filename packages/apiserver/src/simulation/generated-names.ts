/** Names the simulated controllers generate, in kube-controller-manager's alphabet. */
import { randomBytes } from 'node:crypto';

/** Consonants and digits that cannot spell words: the alphabet of apimachinery's `rand.String`. */
const alphabet = 'bcdfghjklmnpqrstvwxz2456789';

/** `length` random characters of {@link alphabet}, as in a Pod name's `-x7k2p` suffix. Default length: 5. */
export function randomSuffix(length = 5): string {
  return [...randomBytes(length)].map((byte) => alphabet[byte % alphabet.length]).join('');
}
