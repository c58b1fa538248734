/**
 * The work a server hands to its worker thread (see `off-loop-worker.ts`): large YAML bodies to parse,
 * large patches and the managedFields of large updates to compute. Plain data both ways; {@link runOffLoopTask} is what the worker runs,
 * and what the server runs itself when it has no worker.
 */
import type { ManagedFieldsEntry } from '../patch/managed-fields.js';
import { computePatch, computeUpdateFields } from '../patch/patch-task.js';
import type { PatchTask, PatchTaskReply, UpdateFieldsTask } from '../patch/patch-task.js';
import { parseYamlText } from '../yaml/yaml-text.js';
import type { YamlParsed } from '../yaml/yaml-text.js';

/** One task. */
export type OffLoopTask =
  | { readonly kind: 'yaml'; readonly text: string }
  | { readonly kind: 'patch'; readonly patch: PatchTask }
  | { readonly kind: 'update-fields'; readonly update: UpdateFieldsTask };

/**
 * A task's outcome. A parsed YAML value comes back as JSON text: the server's JSON.parse of it is
 * several times faster than deserializing the structured clone of an object with many small members.
 */
export type OffLoopReply =
  | { readonly kind: 'yaml'; readonly json: string }
  | { readonly kind: 'yaml'; readonly parsed: YamlParsed }
  | { readonly kind: 'patch'; readonly reply: PatchTaskReply }
  /** The entries as JSON text (`undefined` when none are left). */
  | { readonly kind: 'update-fields'; readonly entriesJson: string | undefined };

/** Runs one task. Never throws for bad input: parse and patch errors are data. */
export function runOffLoopTask(task: OffLoopTask): OffLoopReply {
  if (task.kind === 'patch') return { kind: 'patch', reply: computePatch(task.patch) };
  if (task.kind === 'update-fields') {
    const entries = computeUpdateFields(task.update);
    return { kind: 'update-fields', entriesJson: entries === undefined ? undefined : JSON.stringify(entries) };
  }
  const parsed = parseYamlText(task.text);
  return parsed.ok ? { kind: 'yaml', json: JSON.stringify(parsed.value) } : { kind: 'yaml', parsed };
}

/** A YAML task's outcome as `parseYamlText` gives it. */
export function yamlParsedOf(reply: OffLoopReply): YamlParsed {
  if (reply.kind !== 'yaml') throw new Error(`expected a YAML reply, got ${reply.kind}`);
  return 'json' in reply ? { ok: true, value: JSON.parse(reply.json) as unknown } : reply.parsed;
}

/** A patch task's outcome. */
export function patchReplyOf(reply: OffLoopReply): PatchTaskReply {
  if (reply.kind !== 'patch') throw new Error(`expected a patch reply, got ${reply.kind}`);
  return reply.reply;
}

/** An update-fields task's entries (undefined: none left). */
export function updateFieldsOf(reply: OffLoopReply): ManagedFieldsEntry[] | undefined {
  if (reply.kind !== 'update-fields') throw new Error(`expected an update-fields reply, got ${reply.kind}`);
  return reply.entriesJson === undefined ? undefined : (JSON.parse(reply.entriesJson) as ManagedFieldsEntry[]);
}
