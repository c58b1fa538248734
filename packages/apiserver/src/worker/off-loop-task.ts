/**
 * The work a server hands to its worker thread (see `off-loop-worker.ts`): large request bodies to
 * parse (YAML and JSON), large patches and the managedFields of large updates to compute. Plain
 * data both ways; {@link runOffLoopTask} is what the worker runs, and what the server runs itself
 * when it has no worker. Values come back cut into pieces (`json-pieces.ts`), which the event loop
 * parses a few at a time.
 */
import { parseJsonText } from '../http/json-text.js';
import type { JsonTextParsed } from '../http/json-text.js';
import type { ManagedFieldsEntry } from '../patch/managed-fields.js';
import { computePatch, computeUpdateFields } from '../patch/patch-task.js';
import type { PatchTask, PatchTaskReply, UpdateFieldsTask } from '../patch/patch-task.js';
import { parseYamlText } from '../yaml/yaml-text.js';
import type { YamlParsed } from '../yaml/yaml-text.js';
import { cutJson, joinJsonPieces } from './json-pieces.js';
import type { JsonPiece } from './json-pieces.js';

/** One task. */
export type OffLoopTask =
  | { readonly kind: 'yaml'; readonly text: string }
  | { readonly kind: 'json'; readonly text: string; readonly findDuplicates: boolean }
  | { readonly kind: 'patch'; readonly patch: PatchTask }
  | { readonly kind: 'update-fields'; readonly update: UpdateFieldsTask };

/** A task's outcome. */
export type OffLoopReply =
  | { readonly kind: 'yaml'; readonly pieces: readonly JsonPiece[] }
  | { readonly kind: 'yaml'; readonly parsed: YamlParsed }
  | { readonly kind: 'json'; readonly pieces: readonly JsonPiece[]; readonly duplicateFields: readonly string[] }
  | { readonly kind: 'json'; readonly problem: string }
  | { readonly kind: 'patch'; readonly reply: PatchTaskReply }
  /** The entries (undefined when none are left). */
  | { readonly kind: 'update-fields'; readonly entries: readonly JsonPiece[] | undefined };

/** Runs one task. Never throws for bad input: parse and patch errors are data. */
export function runOffLoopTask(task: OffLoopTask): OffLoopReply {
  switch (task.kind) {
    case 'patch':
      return { kind: 'patch', reply: computePatch(task.patch) };
    case 'update-fields': {
      const entries = computeUpdateFields(task.update);
      return { kind: 'update-fields', entries: entries === undefined ? undefined : cutJson(entries) };
    }
    case 'json': {
      const parsed = parseJsonText(task.text, task.findDuplicates);
      return parsed.ok ? { kind: 'json', pieces: cutJson(parsed.value), duplicateFields: parsed.duplicateFields } : { kind: 'json', problem: parsed.problem };
    }
    case 'yaml': {
      const parsed = parseYamlText(task.text);
      return parsed.ok ? { kind: 'yaml', pieces: cutJson(parsed.value) } : { kind: 'yaml', parsed };
    }
  }
}

function expect<K extends OffLoopReply['kind']>(reply: OffLoopReply, kind: K): Extract<OffLoopReply, { kind: K }> {
  if (reply.kind !== kind) throw new Error(`expected a ${kind} reply, got ${reply.kind}`);
  return reply as Extract<OffLoopReply, { kind: K }>;
}

/** A YAML task's outcome as `parseYamlText` gives it. */
export async function yamlParsedOf(reply: OffLoopReply): Promise<YamlParsed> {
  const yaml = expect(reply, 'yaml');
  return 'pieces' in yaml ? { ok: true, value: await joinJsonPieces(yaml.pieces) } : yaml.parsed;
}

/** A JSON task's outcome as `parseJsonText` gives it. */
export async function jsonParsedOf(reply: OffLoopReply): Promise<JsonTextParsed> {
  const json = expect(reply, 'json');
  return 'pieces' in json ? { ok: true, value: await joinJsonPieces(json.pieces), duplicateFields: json.duplicateFields } : { ok: false, problem: json.problem };
}

/** A patch task's outcome. */
export function patchReplyOf(reply: OffLoopReply): PatchTaskReply {
  return expect(reply, 'patch').reply;
}

/** An update-fields task's entries (undefined: none left). */
export async function updateFieldsOf(reply: OffLoopReply): Promise<ManagedFieldsEntry[] | undefined> {
  const { entries } = expect(reply, 'update-fields');
  return entries === undefined ? undefined : ((await joinJsonPieces(entries)) as ManagedFieldsEntry[]);
}
