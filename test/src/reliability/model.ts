/**
 * The model: what the server must hold after a program, from the writes that the server
 * acknowledged (a write that failed changed nothing: the fault API promises it). Checked after
 * convergence, it proves the faults (the restart above all) lost no acknowledged write, so the
 * handlers' views are compared against a server that is itself right.
 */
import type { ObjectKind } from './program.js';

/** What the model expects of one object. */
export interface ModelObject {
  value: number;
  labels: Record<string, string>;
  /** The status value (gadgets), undefined until a status write. */
  status: number | undefined;
  /** The program's own finalizer is on it. */
  held: boolean;
  /** Deletion requested while held: it stays, being deleted, until released. */
  deleting: boolean;
}

/** The expected objects, keyed `kind/name`; each method applies one acknowledged write. */
export class Model {
  readonly objects = new Map<string, ModelObject>();
  /** Uids of objects whose finalizers the program stripped: their user deletes are not owed. */
  readonly forcedOut = new Set<string>();

  create(key: string, value: number, labels: Record<string, string>): void {
    this.objects.set(key, { value, labels: { ...labels }, status: undefined, held: false, deleting: false });
  }

  setValue(key: string, value: number): void {
    const o = this.objects.get(key);
    if (o) o.value = value;
  }

  setStatus(key: string, value: number): void {
    const o = this.objects.get(key);
    if (o) o.status = value;
  }

  setLabels(key: string, labels: Record<string, string>): void {
    const o = this.objects.get(key);
    if (o) o.labels = { ...labels };
  }

  /** The program's finalizer was added. */
  hold(key: string): void {
    const o = this.objects.get(key);
    if (o) o.held = true;
  }

  /** A delete was acknowledged: gone, or being deleted while held (the handlers' finalizers go by themselves). */
  delete(key: string): void {
    const o = this.objects.get(key);
    if (o?.held) o.deleting = true;
    else this.objects.delete(key);
  }

  /** Every finalizer of the object of `uid` was stripped after its delete: it is gone. */
  forceOut(key: string, uid: string): void {
    this.objects.delete(key);
    this.forcedOut.add(uid);
  }

  /** The program's finalizer was removed. */
  release(key: string): void {
    const o = this.objects.get(key);
    if (o?.deleting) this.objects.delete(key);
    else if (o) o.held = false;
  }
}

/** `kind/name`. */
export function modelKey(kind: ObjectKind, name: string): string {
  return `${kind}/${name}`;
}
